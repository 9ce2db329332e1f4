/**
 * The MCP server: one tool per public endpoint of the table, generated from `@app/sdk/operations`
 * (no tool is written by hand), and the OpenAPI document as a resource.
 */
import { createHash } from 'node:crypto';
import { IDEMPOTENCY_KEY_PATTERN, PAGE_SIZE } from '@app/schemas';
import { APIConnectionError, APIError, Marketplace, RequestValidationError, VERSION } from '@app/sdk';
import { callOperation, type ListResult, type Operation, operations } from '@app/sdk/operations';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { DEFAULT_MAX_FILE_BYTES, guardedFileReader } from './files.js';

export interface ServerOptions {
  /** The access token; default `MARKETPLACE_TOKEN`. */
  token?: string;
  /** The API's address; default `MARKETPLACE_BASE_URL`. */
  baseUrl?: string;
  /** Only the read tools (GETs). */
  readOnly?: boolean;
  /** Only these groups (the first word of a tool name: `collabs`, `campaigns`, `me`, …). */
  groups?: readonly string[];
  /** Run deletes and transitions without asking the user to confirm. */
  yes?: boolean;
  /**
   * The directories file arguments (`logo`, `banner_image`) may be read from, symlinks resolved;
   * default: the working directory.
   */
  allowDirs?: readonly string[];
  /** The largest file argument read, in bytes; default 5 MiB (the API's upload limit). */
  maxFileBytes?: number;
}

/** The URI of the OpenAPI document resource. */
export const OPENAPI_URI = 'marketplace://openapi.json';

/** The operations a server with these options exposes, in table order. */
export function selectOperations({
  readOnly = false,
  groups,
}: Pick<ServerOptions, 'readOnly' | 'groups'>): Operation[] {
  return operations.filter(
    (op) => (!readOnly || op.readOnly) && (!groups || groups.includes(op.sdkPath[0] as string)),
  );
}

/** The annotations of a tool, all set explicitly. */
export function annotationsOf(op: Operation): ToolAnnotations {
  const method = op.endpoint.method;
  return {
    title: op.title,
    readOnlyHint: method === 'GET',
    // MCP: false means "only additive updates"; an update, a delete and a transition overwrite.
    destructiveHint: op.kind === 'update' || op.kind === 'delete' || op.kind === 'transition',
    idempotentHint: method === 'GET' || method === 'PATCH' || method === 'DELETE',
    openWorldHint: false,
  };
}

const maxItems = z
  .number()
  .int()
  .positive()
  .max(10_000)
  .optional()
  .meta({
    description:
      'Walk the following pages too, until this many items (or the last page). When it ends inside a ' +
      'page, `next_page` is that page and `next_skip` the items of it already returned: pass both back',
  });
const skip = z
  .number()
  .int()
  .min(0)
  .max(PAGE_SIZE - 1)
  .optional()
  .meta({ description: 'Items at the start of `page` to leave out: the `next_skip` of the previous call' });

/** The tool's input: the operation's flat input, plus `max_items` and `skip` on lists. */
export function inputSchemaOf(op: Operation): z.ZodObject {
  if (op.endpoint.idempotent) return op.input.extend({ idempotency_key: idempotencyKey });
  return op.kind === 'list' ? op.input.extend({ max_items: maxItems, skip }) : op.input;
}

const idempotencyKey = z
  .string()
  .regex(IDEMPOTENCY_KEY_PATTERN)
  .optional()
  .meta({
    description:
      'Makes the call count once however often it is sent (1 to 255 printable ASCII characters): send ' +
      'the same key when retrying the same call. Default: derived from the request id in `_meta`, or random',
  });

/**
 * The `Idempotency-Key` of a POST tool call: the `idempotency_key` argument; else one derived from
 * the request id the host puts in `_meta` (`requestId`), so that a call the host retries with the
 * same id counts once; else none (the SDK makes a random one).
 */
export function idempotencyKeyOf(
  op: Operation,
  given: unknown,
  meta: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  if (typeof given === 'string') return given;
  const id = meta?.requestId;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  return `mcp-${createHash('sha256').update(`${op.toolName}\n${id}`).digest('hex')}`;
}

/** The tool's output: `{ data }`, with the page position on lists. */
export function outputSchemaOf(op: Operation): z.ZodObject {
  if (op.kind === 'list')
    return z.object({
      data: z.array(op.item as z.ZodType),
      page: z.number().int(),
      total_pages: z.number().int(),
      total_count: z.number().int(),
      next_page: z.number().int().nullable(),
      next_skip: z.number().int(),
    });
  if (!op.response) return z.object({ data: z.null() });
  return z.object({ data: op.endpoint.emptyNotFound ? op.response.nullable() : op.response });
}

/**
 * A one-line hint the model can act on, per status. `settable`: the tool's arguments; a `422` on
 * anything else (`base`, or a guard on a field no tool sets, such as a collab's `state`) is a
 * situation to change first, not an argument to fix.
 */
function hintOf(
  status: number | undefined,
  errors: Record<string, string[]> | undefined,
  settable: ReadonlySet<string> | undefined,
): string {
  switch (status) {
    case 401:
      return 'The token is missing, revoked or read-only: set MARKETPLACE_TOKEN to a valid token (a write token for changes).';
    case 403:
      return "Not allowed: this user's role (an admin or the owner may be needed) or the state of the resource (e.g. a collab that is no longer a draft cannot be deleted) does not permit it.";
    case 404:
      return 'The id is unknown or not visible to this user: list the collection to find a valid id.';
    case 422:
    case undefined: {
      const entries = Object.entries(errors ?? {});
      const isArgument = ([field]: [string, string[]]) =>
        field !== 'base' && (settable === undefined || settable.has(field));
      const list = (items: [string, string[]][]) =>
        items
          .map(([field, messages]) => (field === 'base' ? '' : `${field} `) + messages.join(', '))
          .join('; ');
      const fields = entries.filter(isArgument);
      const situation = entries.filter((entry) => !isArgument(entry));
      const parts = [
        fields.length > 0 && `Fix these fields and call again: ${list(fields)}.`,
        situation.length > 0 && `Not possible as things are: ${list(situation)}.`,
      ].filter(Boolean);
      return parts.length > 0 ? parts.join(' ') : 'The request was refused as invalid; check the arguments.';
    }
    case 503:
      return 'The service is temporarily unavailable: try again in a moment.';
    default:
      return status >= 500
        ? 'The server failed: try again later.'
        : 'The request was refused; check the arguments.';
  }
}

/**
 * An API failure as a tool result (never a protocol error): status, `errors`, hint. `settable`:
 * the arguments of the tool that failed.
 */
export function errorResult(error: unknown, settable?: ReadonlySet<string>): CallToolResult {
  let detail: Record<string, unknown>;
  if (error instanceof APIError) {
    const body = error.body as { errors?: Record<string, string[]>; error?: string } | undefined;
    const errors = typeof body === 'object' && body !== null ? body.errors : undefined;
    detail = {
      status: error.status,
      ...(errors && { errors }),
      ...(typeof body === 'object' && body?.error && { error: body.error }),
      hint: hintOf(error.status, errors, settable),
    };
  } else if (error instanceof RequestValidationError) {
    detail = { status: null, errors: error.errors, hint: hintOf(undefined, error.errors, settable) };
  } else if (error instanceof APIConnectionError) {
    detail = {
      status: null,
      error: error.message,
      hint: 'Check MARKETPLACE_BASE_URL: the API did not answer.',
    };
  } else {
    detail = { status: null, error: error instanceof Error ? error.message : String(error) };
  }
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(detail) }] };
}

/** The question a delete or a transition asks first. */
function confirmation(op: Operation, args: Record<string, unknown>): string {
  const ids = op.pathParams.map((name) => `${name}=${String(args[name])}`).join(', ');
  return `${op.title}${ids ? ` (${ids})` : ''}?`;
}

export function createServer(options: ServerOptions): McpServer {
  const { yes = false, allowDirs = [process.cwd()], maxFileBytes = DEFAULT_MAX_FILE_BYTES } = options;
  const readFile = guardedFileReader({ allowDirs, maxBytes: maxFileBytes });
  // The SDK reads MARKETPLACE_TOKEN / MARKETPLACE_BASE_URL for what is not given (and throws without them).
  const client = new Marketplace({
    ...(options.token && { token: options.token }),
    ...(options.baseUrl && { baseUrl: options.baseUrl }),
  });
  const baseUrl = (options.baseUrl || process.env.MARKETPLACE_BASE_URL || '').replace(/\/+$/, '');
  const server = new McpServer(
    { name: 'marketplace', title: 'Creator Marketplace', version: VERSION },
    {
      instructions:
        'Tools for the creator-marketplace API, one per endpoint. Ids come from the list tools ' +
        '(organizations_list first). Lists return one page; pass `page`, or `max_items` to walk pages ' +
        '(then go on with `page: next_page, skip: next_skip`).',
    },
  );

  for (const op of selectOperations(options)) {
    const inputSchema = inputSchemaOf(op);
    const settable = new Set(Object.keys(inputSchema.shape));
    server.registerTool(
      op.toolName,
      {
        title: op.title,
        description: op.description,
        inputSchema,
        outputSchema: outputSchemaOf(op),
        annotations: annotationsOf(op),
      },
      async (input: Record<string, unknown>, extra): Promise<CallToolResult> => {
        const { max_items, skip, idempotency_key, ...args } = input;
        const key = op.endpoint.idempotent ? idempotencyKeyOf(op, idempotency_key, extra._meta) : undefined;
        if (!yes && (op.kind === 'delete' || op.kind === 'transition')) {
          const refused = await confirm(server, op, args);
          if (refused) return refused;
        }
        try {
          const result = await callOperation(client, op, args, {
            readFile,
            ...(typeof max_items === 'number' && { maxItems: max_items }),
            ...(typeof skip === 'number' && { skip }),
            ...(key !== undefined && { idempotencyKey: key }),
          });
          const { response: _response, ...structured } = result as ListResult;
          return {
            structuredContent: structured as unknown as Record<string, unknown>,
            content: [{ type: 'text', text: JSON.stringify(structured) }],
          };
        } catch (error) {
          return errorResult(error, settable);
        }
      },
    );
  }

  server.registerResource(
    'openapi',
    OPENAPI_URI,
    {
      title: 'OpenAPI document',
      description: 'The OpenAPI 3.1 document of the marketplace API, from the server',
      mimeType: 'application/json',
    },
    async (uri) => {
      const base = baseUrl;
      const response = await fetch(`${base}/openapi.json`, { headers: { Accept: 'application/json' } });
      if (!response.ok) throw new Error(`GET ${base}/openapi.json: ${response.status}`);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: await response.text() }] };
    },
  );
  return server;
}

/**
 * Asks the user to confirm through elicitation when the client supports it. Resolves to the
 * result to return instead of running the call (declined), or undefined to go on.
 */
async function confirm(
  server: McpServer,
  op: Operation,
  args: Record<string, unknown>,
): Promise<CallToolResult | undefined> {
  if (!server.server.getClientCapabilities()?.elicitation) return undefined;
  const answer = await server.server.elicitInput({
    message: confirmation(op, args),
    requestedSchema: {
      type: 'object',
      properties: { confirm: { type: 'boolean', title: 'Confirm', description: op.title } },
      required: ['confirm'],
    },
  });
  if (answer.action === 'accept' && answer.content?.confirm === true) return undefined;
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text: JSON.stringify({ status: null, error: 'The user did not confirm; nothing was changed.' }),
      },
    ],
  };
}
