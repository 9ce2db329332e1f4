/** What the CLI prints: the terminal it prints to, colour, the HTTP head, errors, the notice of more pages. */

import { STATUS_CODES } from 'node:http';
import { getSystemErrorMap } from 'node:util';
import { PAGINATION_HEADERS } from '@app/schemas';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  type FieldErrors,
  MarketplaceError,
  RequestValidationError,
  ValidationError,
} from '@app/sdk';
import {
  describeError,
  type FailedCall,
  type ListResult,
  type Operation,
  type SettingSources,
} from '@app/sdk/operations';
import { EXIT_API, EXIT_USAGE, UsageError } from './arguments.js';
import { escapeControls } from './table.js';

/** Where the CLI writes, and what it knows of the terminal. */
export interface IO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** stdout is a terminal: table output and colour by default. */
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  /** Reads a token: a prompt that does not echo in a terminal, else all of stdin (`--token-stdin`, `auth login`). */
  readStdin: () => Promise<string>;
  /** stdin is a terminal: a delete or a transition may ask (without it they need `--yes`). */
  stdinIsTTY?: boolean;
  /** Asks `question` on the terminal and reads one line (the answer to a confirmation). */
  readLine?: (question: string) => Promise<string>;
  /** The terminal's width (`process.stdout.columns`); without it, `COLUMNS`; without both, no limit. */
  columns?: number;
}

/**
 * stdout could not be written: a full disk, a file over quota, EIO (not a reader that closed the
 * pipe, EPIPE, which ends the CLI quietly with exit 0: bin's main.ts). The failed write throws
 * it, so nothing more is done or printed, and `main` says why on stderr as one line, exit 1.
 */
export class OutputFailed extends Error {
  constructor(cause: unknown) {
    super(cannotWrite(cause), { cause });
  }
}

/**
 * Why a write failed, in the system's words (`cannot write the output: no space left on device`):
 * Node's message adds the code and the call (`ENOSPC: no space left on device, write`).
 */
export function cannotWrite(error: unknown): string {
  const { code, message = String(error) } = (error ?? {}) as NodeJS.ErrnoException;
  const known = [...getSystemErrorMap().values()].find(([name]) => name === code)?.[1];
  return `cannot write the output: ${known ?? message.replace(/^E[A-Z0-9]+: /, '').replace(/, write$/, '')}`;
}

export function outputOf(value: unknown, io: IO): 'json' | 'table' {
  if (value === undefined) return io.isTTY ? 'table' : 'json';
  if (value === 'json' || value === 'table') return value;
  throw new UsageError('--output must be json or table');
}

/** The width tables fit in: the terminal's, else `COLUMNS`, else none (every cell whole). */
export function widthOf(io: IO): number | undefined {
  if (io.columns !== undefined && Number.isInteger(io.columns) && io.columns > 0) return io.columns;
  const columns = Number(io.env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? columns : undefined;
}

/** SGR colours; `plain` leaves the text as it is. */
export interface Style {
  bold: (text: string) => string;
  dim: (text: string) => string;
  green: (text: string) => string;
  yellow: (text: string) => string;
  red: (text: string) => string;
}

const sgr = (on: number, off: number) => (text: string) =>
  text === '' ? text : `\x1b[${on}m${text}\x1b[${off}m`;
export const colours: Style = {
  bold: sgr(1, 22),
  dim: sgr(2, 22),
  green: sgr(32, 39),
  yellow: sgr(33, 39),
  red: sgr(31, 39),
};
export const plain: Style = { bold: String, dim: String, green: String, yellow: String, red: String };

/**
 * Colour on stdout: never in JSON; off with `--no-color`; else `FORCE_COLOR` decides when set
 * (`0`/`false`: off), else `NO_COLOR` (set and not empty: off), else a terminal that is not `dumb`.
 */
export function styleOf(noColor: unknown, io: IO, output: 'json' | 'table'): Style {
  if (output === 'json' || noColor === true) return plain;
  const force = io.env.FORCE_COLOR;
  if (force !== undefined) return force === '0' || force === 'false' ? plain : colours;
  if (io.env.NO_COLOR) return plain;
  return io.isTTY && io.env.TERM !== 'dumb' ? colours : plain;
}

/**
 * The status line and headers (`--include`). The reason phrase is the response's, else the
 * standard one (`Not Found`): an error's status and a list's first page come without one.
 */
export function formatHead(response: Response, style: Style = plain): string {
  const reason = response.statusText || STATUS_CODES[response.status] || '';
  const status = escapeControls(`HTTP ${response.status} ${reason}`.trimEnd());
  const lines = [response.ok ? style.green(status) : style.red(status)];
  response.headers.forEach((value, name) => {
    lines.push(escapeControls(`${name}: ${value}`));
  });
  return `${lines.join('\n')}\n\n`;
}

/**
 * A list that has more pages than it printed: how many (which items, when they do not start at
 * the first; which page, when it printed one), and how to get the rest (`--page N` when the next
 * page starts after what was printed; `--all`, without `--page` when one was given, since `--all`
 * walks from the page given). `--all` from a later page says so too. Undefined when nothing is left.
 * `maxItems`: the items asked for (undefined: one page; infinite: `--all`); `count`: the items
 * printed (a streamed walk's are not in `result.data`).
 */
export function pageNotice(
  op: Operation,
  result: ListResult,
  maxItems: number | undefined,
  count: number = result.data.length,
): string | undefined {
  const what = op.command[op.command.length - 2] ?? 'items';
  // The first item's number: the pages before it are full (`Page-Items` each).
  const size = Number(result.response?.headers.get(PAGINATION_HEADERS.pageItems));
  const from = Number.isInteger(size) && size > 0 ? (result.page - 1) * size + 1 : 1;
  const later = from > 1 && count > 0;
  const shown = later
    ? `items ${from}–${from + count - 1} of ${result.total_count} ${what} shown`
    : `${count} of ${result.total_count} ${what} shown`;
  const every = later ? '--all without --page for every page' : '--all for every page';
  if (result.next_page === null)
    return later && maxItems === Number.POSITIVE_INFINITY
      ? `${shown} (from page ${result.page} on); ${every}`
      : undefined;
  const where = maxItems === undefined ? ` (page ${result.page} of ${result.total_pages})` : '';
  const next = result.next_skip === 0 ? `--page ${result.next_page} for the next page, ` : '';
  return `${shown}${where}; ${next}${every}`;
}

/**
 * A page past the last was asked for (`--page 99`): the API answers it with no items, as any page
 * with none; this says why. Undefined otherwise.
 */
export function pastLastPage(result: ListResult, count: number = result.data.length): string | undefined {
  return count === 0 && result.page > result.total_pages
    ? `page ${result.page} is past the last page (${result.total_pages})`
    : undefined;
}

/** How long each attempt of the failed request waited for an answer, and how many there were. */
export interface Waited {
  seconds: number;
  attempts: number;
}

/**
 * No answer in time: the SDK's message (`No response within 30000 ms (4 attempts): GET …`) in the
 * CLI's units, the attempts said also when there was one (`No response within 30 s, 4 attempts: GET …`).
 */
function timeoutMessage(message: string, { seconds, attempts }: Waited): string {
  const said = `No response within ${seconds} s, ${attempts} attempt${attempts === 1 ? '' : 's'}`;
  const sdk = /^No response within \d+ ms( \(\d+ attempts\))?/;
  return sdk.test(message) ? message.replace(sdk, said) : `${message} (${said})`;
}

/** `errors` under the names `rename` gives their fields (the flags), messages of one name merged. */
function renamed(errors: FieldErrors, rename: (field: string) => string): FieldErrors {
  const out: Record<string, string[]> = {};
  for (const [field, messages] of Object.entries(errors)) {
    const name = rename(field);
    out[name] = [...(out[name] ?? []), ...messages];
  }
  return out;
}

/**
 * The error as the user should read it: the fields of a payload refused before sending or of a
 * 422 named by the flags that set them (`--query-website`, not `website`, which is also the name
 * of `--website`'s field). The message and the hint are made from it; the body printed stays the
 * server's.
 */
function inFlags(error: unknown, rename: ((field: string) => string) | undefined): unknown {
  if (!rename) return error;
  if (error instanceof RequestValidationError)
    return new RequestValidationError(renamed(error.errors, rename));
  if (error instanceof ValidationError && Object.keys(error.errors).length > 0) {
    const body = error.body as Record<string, unknown>;
    return new ValidationError(
      error.status,
      error.headers,
      { ...body, errors: renamed(error.errors, rename) },
      error.request,
    );
  }
  return error;
}

/**
 * An API error: exit 1, its status, the hint of `describeError` (the one the MCP server gives) and
 * the body on stderr. A payload refused before sending: exit 2. `settable`: the command's fields.
 */
export function reportError(
  error: unknown,
  io: IO,
  include: boolean,
  {
    settable,
    call,
    from = {},
    answeredByEveryApi,
    waited,
    rename,
  }: {
    /** The command's fields. */
    settable?: ReadonlySet<string>;
    /** The operation that failed. */
    call?: FailedCall;
    /**
     * Where the token and the base URL came from (`--base-url`, `MARKETPLACE_TOKEN`, the stored
     * login): the hints name it.
     */
    from?: SettingSources;
    /**
     * The call is one every API answers (`auth login`'s check): a 404 means the base URL is not
     * the API, and the hint says so rather than speak of an id.
     */
    answeredByEveryApi?: boolean;
    /** The failed request's timeout and attempts (a timeout says them). */
    waited?: Waited;
    /** A field's flag (`website` of the query: `--query-website`), for the messages. */
    rename?: (field: string) => string;
  } = {},
): number {
  const sdkError = error;
  error = inFlags(error, rename);
  const described = describeError(
    error,
    settable && rename ? new Set([...settable].map(rename)) : settable,
    call,
    { from },
  );
  const hint =
    error instanceof APIError && error.status === 404 && answeredByEveryApi && from.baseUrl
      ? `Check the base URL (from ${from.baseUrl}): it answered 404, so it does not point at the API.`
      : described.hint;
  const slow =
    error instanceof APIConnectionTimeoutError
      ? ' --timeout SECONDS and --max-retries N (MARKETPLACE_TIMEOUT, MARKETPLACE_MAX_RETRIES) say how long to wait.'
      : '';
  const hintLine = hint ? `marketplace: hint: ${escapeControls(hint + slow)}\n` : '';
  if (error instanceof APIError) {
    if (include) io.stderr(formatHead(new Response(null, { status: error.status, headers: error.headers })));
    else io.stderr(`marketplace: ${error.message}\n`); // the message starts with the status
    io.stderr(hintLine);
    const body = (sdkError as APIError).body;
    // A text body the message already says (a 401's `HTTP Token: Access denied.`; the start of a
    // long one, such as another server's HTML page, which the message holds) is not said twice.
    const said = typeof body === 'string' && !include && error.message.includes(body.slice(0, 200).trim());
    if (body !== undefined && !said)
      io.stderr(
        `${typeof body === 'string' ? body.replace(/\n?$/, '\n') : `${JSON.stringify(body, null, 2)}\n`}`,
      );
    return EXIT_API;
  }
  if (error instanceof RequestValidationError) {
    io.stderr(
      `marketplace: ${error.message}\n${hintLine}${JSON.stringify({ errors: (sdkError as RequestValidationError).errors }, null, 2)}\n`,
    );
    return EXIT_USAGE;
  }
  if (error instanceof APIConnectionError || error instanceof MarketplaceError) {
    const message =
      error instanceof APIConnectionTimeoutError && waited
        ? timeoutMessage(error.message, waited)
        : error.message;
    io.stderr(`marketplace: ${message}\n${hintLine}`);
    return EXIT_API;
  }
  throw error;
}
