/**
 * `@app/sdk/operations`: every public endpoint of the table as an operation that tools built on the
 * SDK (the MCP server, the CLI) generate their commands from: its names, a flat input schema (path
 * parameters, query and body fields in one object) and a call of the SDK method from flat
 * arguments. Nothing here is listed by hand: a new endpoint of the table is a new operation.
 */
import {
  type Endpoint,
  endpointDescription,
  FIELD_DESCRIPTIONS,
  idDescription,
  type NamedEndpoint,
  publicEndpoints,
  type TransitionEndpoint,
} from '@app/schemas';
import * as z from 'zod';
import type { Marketplace } from './client.js';
import { NotFoundError, RequestValidationError } from './core/error.js';
import { madeResponse } from './core/made-response.js';
import { checkedCount, type Page } from './core/pagination.js';
import { validateParams } from './core/validation.js';
import { nearNames } from './internal/near-names.js';
import { objectShape } from './internal/object-shape.js';
import type { RequestOptions } from './internal/options.js';

// The table's types an operation carries, for the declarations of this entry point.
export type { Endpoint, NamedEndpoint } from '@app/schemas';
export {
  type DescribeOptions,
  describeError,
  type ErrorDescription,
  type FailedCall,
  type SettingSources,
} from './describe-error.js';
export { nearNames } from './internal/near-names.js';

/** What an operation does, from the table: it decides the annotations, confirmations and output. */
export type OperationKind = 'list' | 'read' | 'create' | 'update' | 'delete' | 'transition';

export interface Operation {
  /** The table's `group.action`, e.g. `socialAccounts.list`. */
  readonly name: string;
  readonly endpoint: Endpoint;
  /** The SDK's name of the method (decisions.md §5), which tools and commands are named after: `['me', 'socialAccounts', 'list']`. */
  readonly sdkPath: readonly string[];
  /** `me_social_accounts_list` */
  readonly toolName: string;
  /** `['me', 'social-accounts', 'list']` */
  readonly command: readonly string[];
  readonly kind: OperationKind;
  /** GET: changes nothing. */
  readonly readOnly: boolean;
  /** The table's summary (one line). */
  readonly title: string;
  /** The table's full description (`endpointDescription`): what it does, who may call, what it answers. */
  readonly description: string;
  /** Path parameters in path order (the SDK method's leading arguments). */
  readonly pathParams: readonly string[];
  /** Query parameters, under their flat names (see {@link Operation.queryNames}). */
  readonly queryParams: readonly string[];
  /** Flat name → query parameter name (a query field named like a body field gets `query_`). */
  readonly queryNames: Readonly<Record<string, string>>;
  readonly bodyFields: readonly string[];
  /** Body fields that carry a file (multipart). */
  readonly fileFields: readonly string[];
  /**
   * Params + query + body fields as one object; file fields are strings: a `data:` URL, or a local
   * path where the call's `readFile` reads one (see {@link CallOptions.readFile}).
   */
  readonly input: z.ZodObject;
  /** The response schema (a transition's: its show endpoint's); undefined for a delete. */
  readonly response: z.ZodType | undefined;
  /** `list` only: the schema of one item. */
  readonly item: z.ZodType | undefined;
}

/** The flat arguments of a call, as parsed by {@link Operation.input}. */
export type FlatArgs = Readonly<Record<string, unknown>>;

/**
 * Turns a file field's value (a `data:` URL, or a path) into the Blob the SDK sends as multipart;
 * throws (a `RequestValidationError` on `field`) for a value it does not read.
 */
export type FileReader = (value: string, field: string) => Promise<Blob>;

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** `/me/...` endpoints are `client.me.<group>` (decisions.md §5); the rest are top-level groups. */
function sdkPathOf(e: NamedEndpoint): string[] {
  const [group = '', action = ''] = e.name.split('.');
  return e.path.startsWith('/me/') ? ['me', group, action] : [group, action];
}

function kindOf(e: Endpoint): OperationKind {
  if (e.paginated) return 'list';
  if (e.status === 303) return 'transition';
  if (e.method === 'GET') return 'read';
  if (e.method === 'DELETE') return 'delete';
  return e.method === 'POST' ? 'create' : 'update';
}

/** The fields of a body schema: an object, or an object with a transform. */
function bodyShapeOf(schema: z.ZodType): Readonly<Record<string, z.ZodType>> {
  const shape = objectShape(schema);
  if (shape) return shape;
  throw new TypeError('operations: a body schema must be an object (or an object with a transform)');
}

const fileField = z
  .string()
  .min(1)
  .meta({ description: 'A file: a local path, or a data: URL (PNG, JPEG, WebP or GIF)' });

/**
 * An input field with a description: its schema's own, else the table's for that field name
 * (`FIELD_DESCRIPTIONS`, `idDescription`). A `query_` field is described as its query parameter.
 */
function describedInput(e: Endpoint, name: string, schema: z.ZodType): z.ZodType {
  const own = (z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { description?: unknown })
    .description;
  if (typeof own === 'string' && own !== '') return schema;
  const wire = name.replace(/^query_/, '');
  const text = wire === 'id' ? idDescription(e.path) : FIELD_DESCRIPTIONS[wire];
  if (text === undefined) return schema;
  // An update leaves out what it does not change: a create's default is not one of its values.
  return schema.meta({ description: e.method === 'PATCH' ? withoutDefault(text) : text });
}

/** `text` without what it says of a default (`(default private)`, `; default usd`). */
const withoutDefault = (text: string) => text.replace(/ \(default [^)]*\)|; default [^;]*$/, '');

function operationOf(e: NamedEndpoint): Operation {
  const sdkPath = sdkPathOf(e);
  const pathParams = [...e.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1] as string);
  const paramShape = e.params.shape as Record<string, z.ZodType>;
  const shape: Record<string, z.ZodType> = {};
  for (const name of pathParams) shape[name] = paramShape[name] as z.ZodType;
  const bodyShape = e.body ? bodyShapeOf(e.body.schema) : {};
  const bodyFields = [...Object.keys(bodyShape), ...(e.body?.files ?? [])];
  // A body that may be left out (collab create) makes every field optional.
  for (const [name, schema] of Object.entries(bodyShape))
    shape[name] = e.body?.required === false ? schema.optional() : schema;
  for (const name of e.body?.files ?? []) shape[name] = fileField.optional();
  const queryNames: Record<string, string> = {};
  for (const [name, schema] of Object.entries(e.query.shape as Record<string, z.ZodType>)) {
    const flat = name in shape ? `query_${name}` : name;
    queryNames[flat] = name;
    shape[flat] = schema;
  }
  const response = e.show ? e.show.response : e.response;
  const kind = kindOf(e);
  return {
    name: e.name,
    endpoint: e,
    sdkPath,
    toolName: sdkPath.map(snake).join('_'),
    command: sdkPath.map(kebab),
    kind,
    readOnly: e.method === 'GET',
    title: e.summary,
    description: endpointDescription(e, 'call'),
    pathParams,
    queryParams: Object.keys(queryNames),
    queryNames,
    bodyFields,
    fileFields: e.body?.files ?? [],
    input: z.object(
      Object.fromEntries(
        Object.entries(shape).map(([name, schema]) => [name, describedInput(e, name, schema)]),
      ),
    ),
    response,
    item: kind === 'list' && response instanceof z.ZodArray ? (response.element as z.ZodType) : undefined,
  };
}

/** Every public endpoint of the table (test helpers excluded), in table order. */
export const operations: readonly Operation[] = publicEndpoints.map(operationOf);

/** The JSON Schema of an operation's flat input, as {@link inputJsonSchema} gives it. */
export interface InputJsonSchema {
  /** The arguments are one object. */
  type: 'object';
  /** Each argument's schema, with its description. */
  properties: Record<string, Record<string, unknown>>;
  /** The arguments that must be given (absent when none must). */
  required?: string[];
  /** `callOperation` refuses any other argument. */
  additionalProperties: false;
  /** Any other keyword zod writes. */
  [keyword: string]: unknown;
}

/**
 * The JSON Schema (draft-07, without `$schema`, as tool-calling hosts take it) of an operation's
 * flat input, for a model's tool or a form: what a call takes, its input side (`z.toJSONSchema`'s
 * default, the output side, cannot show the payloads' transforms). `input`: `op.input` extended
 * with arguments of the caller's own (the MCP server's `max_items`, `idempotency_key`).
 * @example inputJsonSchema(operations.find((op) => op.name === 'collabs.create')!)
 */
export function inputJsonSchema(op: Operation, input: z.ZodObject = op.input): InputJsonSchema {
  const json = z.toJSONSchema(input, { io: 'input', target: 'draft-7' }) as Record<string, unknown>;
  const { $schema: _dialect, ...schema } = json;
  return { ...schema, additionalProperties: false } as InputJsonSchema;
}

/** The API's upload limit unless its server raises it (`MARKETPLACE_MAX_UPLOAD_BYTES`): 5 MiB. */
export const DEFAULT_MAX_UPLOAD_BYTES = 5 * 1024 * 1024;

/**
 * A reader of a `data:` URL, or of any file from disk (Node), that reads at most `maxBytes` of a
 * file: a longer one (a device such as `/dev/zero`, a file of gigabytes) is an error with the code
 * `EFBIG` before anything is sent, not a read until memory runs out. Not the default of
 * `callOperation`: pass it as `readFile` where the arguments come from the person running the
 * program (a shell), never where they come from a model or another party, which could name
 * `~/.ssh/id_rsa` as a logo.
 * @example callOperation(client, op, args, { readFile: fileValueReader({ maxBytes: 20 * 1024 * 1024 }) })
 */
export function fileValueReader(options: { maxBytes?: number } = {}): FileReader {
  const { maxBytes = DEFAULT_MAX_UPLOAD_BYTES } = options;
  checkedCount('maxBytes', maxBytes, false);
  return async (value, field) => {
    if (value.startsWith('data:')) return readDataUrl(value, field);
    // Named through a variable, so that an application's bundler for the browser neither tries to
    // resolve Node's module (esbuild's error) nor warns about it (Vite's, webpack's). Taken from
    // `process.getBuiltinModule` where Node has it (22.3+): an `import()` left in the CommonJS build
    // rejects in a module jest loads without `--experimental-vm-modules`.
    const fsModule = 'node:fs/promises';
    const node = globalThis.process as { getBuiltinModule?: (id: string) => unknown } | undefined;
    const { open } = (node?.getBuiltinModule?.(fsModule) ??
      (await import(
        /* webpackIgnore: true */ /* @vite-ignore */ fsModule
      ))) as typeof import('node:fs/promises');
    const types: Record<string, string> = {
      '.png': 'image/png',
      '.jpg': 'image/jpeg',
      '.jpeg': 'image/jpeg',
      '.webp': 'image/webp',
      '.gif': 'image/gif',
    };
    const handle = await open(value, 'r');
    const chunks: Uint8Array[] = [];
    try {
      // One byte past the limit says the file is longer; nothing past it is read.
      for (let read = 0; ; ) {
        const chunk = new Uint8Array(Math.min(64 * 1024, maxBytes + 1 - read));
        const { bytesRead } = await handle.read(chunk, 0, chunk.length);
        if (bytesRead === 0) break;
        chunks.push(chunk.subarray(0, bytesRead));
        read += bytesRead;
        if (read > maxBytes)
          throw Object.assign(
            new Error(`it is over ${maxBytes} bytes, more than the API takes; nothing was sent`),
            { code: 'EFBIG' },
          );
      }
    } finally {
      await handle.close();
    }
    const extension = /\.[^./\\]+$/.exec(value)?.[0].toLowerCase() ?? '';
    return new Blob(chunks as Uint8Array<ArrayBuffer>[], { type: types[extension] ?? '' });
  };
}

/**
 * Reads a `data:` URL, or any file from disk (Node) up to the API's default upload limit (5 MiB;
 * {@link fileValueReader} for another). Not the default of `callOperation`: pass it as `readFile`
 * where the arguments come from the person running the program (a shell), never where they come
 * from a model or another party, which could name `~/.ssh/id_rsa` as a logo.
 */
export const readFileValue: FileReader = fileValueReader();

/**
 * The default reader of `callOperation` and `requestOf`: a `data:` URL only. A local path is
 * refused: a file is read only through a `readFile` the caller passes.
 */
const readDataUrl: FileReader = async (value, field) => {
  if (!value.startsWith('data:'))
    throw new RequestValidationError({
      [field]: [
        'is not a data: URL; a local file is read only when the call passes readFile (e.g. readFileValue, which reads any local path)',
      ],
    });
  try {
    return await (await fetch(value)).blob();
  } catch (error) {
    // A data: URL cut short or mis-encoded: the argument's mistake, said on its field.
    const why = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    throw new RequestValidationError({
      [field]: [`is not a readable data: URL (${why}); give data:<type>;base64,<the whole file>`],
    });
  }
};

/**
 * The request of an operation from flat arguments: `{ params, query, body }`, as `client.request`
 * takes it. Refused with a `RequestValidationError` before a file is read: a path parameter left
 * out or blank (as the typed methods refuse a blank id), and an argument `op.input` does not have
 * (one given as `undefined` is as if not given), named with the arguments it may have meant.
 */
export async function requestOf(
  op: Operation,
  args: FlatArgs,
  readFile: FileReader = readDataUrl,
): Promise<OperationRequest> {
  const params = checkedArgs(op, args);
  const body: Record<string, unknown> = {};
  for (const name of op.bodyFields) {
    const value = args[name];
    if (value === undefined) continue;
    body[name] =
      op.fileFields.includes(name) && typeof value === 'string' ? await readFile(value, name) : value;
  }
  const query: Record<string, unknown> = {};
  for (const [flat, name] of Object.entries(op.queryNames))
    if (args[flat] !== undefined) query[name] = args[flat];
  const request: OperationRequest = { params };
  if (Object.keys(query).length > 0) request.query = query;
  if (op.endpoint.body && (Object.keys(body).length > 0 || op.endpoint.body.required)) request.body = body;
  return request;
}

/** The path parameters of `args`, once every path parameter and every argument name is checked. */
function checkedArgs(op: Operation, args: FlatArgs): Record<string, string> {
  const errors: Record<string, string[]> = {};
  let params: Record<string, string> = {};
  try {
    params = validateParams(op.endpoint, Object.fromEntries(op.pathParams.map((name) => [name, args[name]])));
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error;
    Object.assign(errors, error.errors);
  }
  const known = Object.keys(op.input.shape);
  for (const [name, value] of Object.entries(args))
    if (value !== undefined && !Object.hasOwn(op.input.shape, name))
      errors[name] = [notAnArgument(op, name, known)];
  if (Object.keys(errors).length > 0) throw new RequestValidationError(errors);
  return params;
}

/** Why `name` is refused: the operation's arguments it may have meant, else all of them. */
function notAnArgument(op: Operation, name: string, known: readonly string[]): string {
  const near = nearNames(name, known);
  if (near.length > 0)
    return `is not an argument of ${op.name}: did you mean ${near.slice(0, 3).join(' or ')}?`;
  return `is not an argument of ${op.name} (it takes ${known.length > 0 ? known.join(', ') : 'none'})`;
}

/** What `client.request` takes: path parameters, query and payload, each by name. */
export interface OperationRequest {
  params: Record<string, string>;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
}

/** One page of a list (or the pages `maxItems` walked), with where to go on. */
export interface ListResult<T = unknown> {
  data: T[];
  page: number;
  total_pages: number;
  total_count: number;
  /** The page to ask for next, or null when `data` ends with the last item of the last page. */
  next_page: number | null;
  /**
   * Items at the start of `next_page` that `data` already holds: 0, unless `maxItems` ended
   * inside a page (then `next_page` is that page, and this is the `skip` to ask for it with).
   */
  next_skip: number;
  response: Response | undefined;
}

export interface CallOptions extends RequestOptions {
  /**
   * Turns a file field's string into the file sent. The default reads `data:` URLs only and refuses
   * a local path; `readFileValue` reads any local path too (for a person's own shell, not for
   * arguments a model or another party chose).
   */
  readFile?: FileReader;
  /**
   * Lists: walk the pages from `page` until this many items (or the last page). An integer of at
   * least 0, or `Infinity` for every page; anything else is a `RangeError`.
   */
  maxItems?: number;
  /**
   * Lists: items at the start of the first page to leave out (a `next_skip` given back). An integer
   * of at least 0; anything else is a `RangeError`.
   */
  skip?: number;
  /**
   * Lists: called with each page's items as the walk reaches them, before the next page is asked
   * for: output that streams (the CLI's `--all`) need not wait for the last. The items go there
   * instead of into `data`, which stays empty, so that a walk holds one page at a time however
   * long the list; the counts (`next_page`, `next_skip`) are as without it. `response` is the
   * result's (the first page's status and headers), given with every page: what is printed
   * before the items (the CLI's `--include`) need not wait for the last page either.
   */
  onItems?: (items: readonly unknown[], response: Response) => void;
}

/**
 * Calls the endpoint of `op` with flat arguments, through the client's `list`, `transition` or
 * `request` (the table's endpoint and `{ params, query, body }`; no resource method is looked up).
 * Lists give one page (`page` picks it), or every page up to `maxItems`; other calls give their
 * data and the response (status, headers). An endpoint whose 404 is empty (`GET /me/address.json`
 * without an address) gives `null`.
 */
export async function callOperation(
  client: Marketplace,
  op: Operation,
  args: FlatArgs,
  { readFile = readDataUrl, maxItems, skip = 0, onItems, ...options }: CallOptions = {},
): Promise<{ data: unknown; response: Response | undefined } | ListResult> {
  const endpoint = op.endpoint;
  if (op.kind === 'list') {
    // Checked before anything is read or sent: `NaN` would walk every page, `-1` drop an item.
    if (maxItems !== undefined) checkedCount('maxItems', maxItems, true);
    checkedCount('skip', skip, false);
  }
  const request = await requestOf(op, args, readFile);
  if (op.kind === 'list')
    return walk(await client.list(endpoint, request as never, options), maxItems, skip, onItems);
  const pending =
    op.kind === 'transition'
      ? client.transition(endpoint as TransitionEndpoint, request.params as never, options)
      : client.request(endpoint, request as never, options);
  try {
    const { data, response } = await pending.withResponse();
    return { data: data ?? null, response };
  } catch (error) {
    // Only the empty 404 means "none": a JSON one is a wrong URL or route.
    if (endpoint.emptyNotFound && error instanceof NotFoundError && (error.body ?? '') === '')
      return {
        data: null,
        response: madeResponse(null, { status: 404, headers: error.headers }, error.request?.url ?? ''),
      };
    throw error;
  }
}

/**
 * The first page from `skip` on, then, with `maxItems`, the following pages until that many items.
 * A page is never skipped over: when `maxItems` ends inside one, `next_page` is that page again and
 * `next_skip` says how many of its items `data` already holds.
 */
async function walk(
  first: Page<unknown>,
  maxItems: number | undefined,
  skip: number,
  onItems: CallOptions['onItems'],
): Promise<ListResult> {
  const data: unknown[] = [];
  const response = new Response(null, { status: 200, headers: first.headers });
  // Streamed items go to `onItems` only: kept, every page of a long walk would stay in memory.
  const take = onItems
    ? (items: readonly unknown[]) => onItems(items, response)
    : (items: readonly unknown[]) => data.push(...items);
  let taken = 0;
  let page = first;
  let offset = skip;
  let next: { page: number | null; skip: number };
  for (;;) {
    const rest = page.data.slice(offset);
    const room = (maxItems ?? Number.POSITIVE_INFINITY) - taken;
    if (rest.length > room) {
      take(rest.slice(0, room));
      taken += room;
      next = { page: page.page, skip: offset + room };
      break;
    }
    take(rest);
    taken += rest.length;
    if (maxItems === undefined || taken >= maxItems || !page.hasNextPage()) {
      next = { page: page.hasNextPage() ? page.page + 1 : null, skip: 0 };
      break;
    }
    page = await page.getNextPage();
    offset = 0;
  }
  return {
    data,
    page: first.page,
    total_pages: page.totalPages,
    total_count: page.totalCount,
    next_page: next.page,
    next_skip: next.skip,
    response,
  };
}
