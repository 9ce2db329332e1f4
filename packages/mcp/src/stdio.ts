import process from 'node:process';
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  JSONRPCErrorResponseSchema,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { clip } from './text.js';

/** The most bytes of one message (its line without the line end): the SDK's stdio transport's bound. */
export const DEFAULT_MAX_LINE_BYTES = 10 * 1024 * 1024;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export interface StdioTransportOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** The most bytes of one line, its line end (`\n`, `\r\n`) not counted. */
  maxLineBytes?: number;
}

/**
 * MCP over stdio (newline-delimited JSON-RPC messages), as the SDK's `StdioServerTransport` does it,
 * except for what it cannot read, which it answers as JSON-RPC 2.0 has it (section 5.1) instead of
 * dropping it with no answer (an agent host then waited for ever) or stopping reading stdin:
 * - a line that is no JSON: `-32700` "Parse error", id `null`;
 * - JSON that is no JSON-RPC message (the SDK's `JSONRPCMessageSchema`), a batch among them (MCP
 *   2025-06-18 removed batching; the SDK's schema takes none): `-32600` "Invalid Request", with
 *   the message's id when it is a request with a string or number id, else `null`;
 * - a line over `maxLineBytes`: `-32600`, id `null`, as soon as it is over; the rest of the line
 *   is skipped up to its newline without being kept, so memory stays bounded; so it does while
 *   the host leaves answers unread, as stdin is not read then (`#write`).
 * Each is also passed to `onerror`, and the next line is read. A line ending in `\r\n` is taken,
 * an empty line is no JSON, and a last line without its newline at the end of stdin is never
 * read, as in the SDK's `ReadBuffer`. The end of stdin does not close the transport (the SDK's
 * does not either): requests still running are answered, and the process ends when nothing is left.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #maxLineBytes: number;
  #started = false;
  #closed = false;
  /** Set while stdout holds more than its buffer; resolves when it drains. */
  #drained: Promise<void> | undefined;
  /** The current line's bytes read so far (none while it is being skipped). */
  #line: Buffer[] = [];
  #lineBytes = 0;
  /** Whether the current line went over the bound and is skipped up to its newline. */
  #skipping = false;

  constructor(options: StdioTransportOptions = {}) {
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.#maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('StdioTransport already started');
    this.#started = true;
    this.#stdin.on('data', this.#ondata);
    this.#stdin.on('error', this.#onStdinError);
  }

  /** Writes the message as one line; resolves once stdout took it (after `drain` when its buffer is full). */
  send(message: JSONRPCMessage): Promise<void> {
    return this.#write(message);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stdin.off('data', this.#ondata);
    this.#stdin.off('error', this.#onStdinError);
    // Paused only when nothing else reads stdin, as the SDK's transport does.
    if (this.#stdin.listenerCount('data') === 0) this.#stdin.pause();
    this.#line = [];
    this.#lineBytes = 0;
    this.onclose?.();
  }

  readonly #onStdinError = (error: Error) => {
    this.onerror?.(error);
  };

  readonly #ondata = (chunk: Buffer) => {
    let from = 0;
    while (from < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, from);
      const end = newline === -1 ? chunk.length : newline;
      if (!this.#skipping && end > from) {
        this.#line.push(chunk.subarray(from, end));
        this.#lineBytes += end - from;
        // One byte more than the bound until the line's end is seen: it may be the `\r` of `\r\n`.
        if (this.#lineBytes > this.#maxLineBytes + 1) this.#tooLong();
      }
      if (newline === -1) break;
      if (this.#skipping) this.#skipping = false;
      else this.#read(Buffer.concat(this.#line, this.#lineBytes));
      this.#line = [];
      this.#lineBytes = 0;
      from = newline + 1;
    }
  };

  /** The line is over the bound: it is answered now, and skipped up to its newline. */
  #tooLong() {
    this.#line = [];
    this.#lineBytes = 0;
    this.#skipping = true;
    this.#refuse(
      -32600,
      null,
      `Invalid Request: a message must not exceed ${this.#maxLineBytes} bytes; this line had more and was skipped unread`,
    );
  }

  #read(line: Buffer) {
    const length = line.at(-1) === CARRIAGE_RETURN ? line.length - 1 : line.length;
    if (length > this.#maxLineBytes) {
      this.#tooLong();
      this.#skipping = false;
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line.toString('utf8', 0, length));
    } catch (error) {
      this.#refuse(-32700, null, `Parse error: the line is not JSON (${clip((error as Error).message)})`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.#refuse(-32600, idOf(value), `Invalid Request: ${invalid(value)}`);
      return;
    }
    try {
      this.onmessage?.(parsed.data);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  /** Says why on `onerror`, and answers with this JSON-RPC error. */
  #refuse(code: -32700 | -32600, id: RequestId | null, message: string) {
    this.onerror?.(new Error(message));
    void this.#write({ jsonrpc: '2.0', id, error: { code, message } });
  }

  /**
   * Writes one line; resolves once stdout took it. While stdout holds more than its buffer (its
   * reader, the host, takes nothing), stdin is not read: a host writing lines the transport
   * refuses, each answered, and reading none of the answers would otherwise grow them in memory
   * without bound. One `drain` listener for all the writes waiting.
   */
  #write(message: object): Promise<void> {
    if (this.#stdout.write(`${JSON.stringify(message)}\n`)) return Promise.resolve();
    if (!this.#drained) {
      this.#stdin.pause();
      this.#drained = new Promise((resolve) =>
        this.#stdout.once('drain', () => {
          this.#drained = undefined;
          if (!this.#closed) this.#stdin.resume();
          resolve();
        }),
      );
    }
    return this.#drained;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The id an Invalid Request is answered with: a request's string or number id, else `null`. A
 * malformed response's id is not one: it names one of the server's own requests, not the client's.
 */
function idOf(value: unknown): RequestId | null {
  if (!isObject(value)) return null;
  if (!('method' in value) && ('result' in value || 'error' in value)) return null;
  const { id } = value;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/** Why `value` is no JSON-RPC message: the first problem of the kind of message it looks like. */
function invalid(value: unknown): string {
  if (Array.isArray(value))
    return 'a batch (a JSON array) is not taken: MCP removed JSON-RPC batching in 2025-06-18; send one message a line';
  if (!isObject(value)) return 'a message is a JSON object';
  const [kind, schema] =
    'method' in value
      ? 'id' in value
        ? ['request', JSONRPCRequestSchema]
        : ['notification', JSONRPCNotificationSchema]
      : 'error' in value
        ? ['error response', JSONRPCErrorResponseSchema]
        : ['response', JSONRPCResultResponseSchema];
  const issue = schema.safeParse(value).error?.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  return `not a JSON-RPC 2.0 ${kind}${issue ? ` (${where}${clip(issue.message, 200)})` : ''}`;
}
