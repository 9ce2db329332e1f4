/**
 * The MCP server: one tool per public endpoint of the table, generated from `@app/sdk/operations`
 * (no tool is written by hand), and the OpenAPI document as a resource.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  componentById,
  contractRegistry,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_KEY_REUSED_MESSAGE,
  PAGE_SIZE,
  toFieldErrors,
  withFieldDescriptions,
} from '@app/schemas';
import { Marketplace, NotFoundError, RequestValidationError, VERSION } from '@app/sdk';
import {
  callOperation,
  describeError,
  type ErrorDescription,
  type FailedCall,
  inputJsonSchema,
  type ListResult,
  nearNames,
  type Operation,
  operations,
} from '@app/sdk/operations';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  type ElicitResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type RequestId,
  type Tool,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { DEFAULT_MAX_FILE_BYTES, defaultAllowDirs, guardedFileReader } from './files.js';
import { typedFromText } from './from-text.js';
import { clip, quoted } from './text.js';

export interface ServerOptions {
  /** The access token; default `MARKETPLACE_TOKEN`. */
  token?: string;
  /** The API's address; default `MARKETPLACE_BASE_URL`. */
  baseUrl?: string;
  /** Only the read tools (GETs). */
  readOnly?: boolean;
  /**
   * Only these groups (the first word of a tool name: `collabs`, `campaigns`, `me`, …); with any
   * group whose tools take an `organization_id`, `organizations_list` too (it gives those ids).
   */
  groups?: readonly string[];
  /**
   * Run deletes and transitions without asking the user to confirm. Without it they ask through
   * elicitation, and are refused when the host cannot ask.
   */
  yes?: boolean;
  /**
   * `compact` (the default): each tool's output schema names the resource's schema in the OpenAPI
   * document instead of repeating it; `full`: the whole schema.
   */
  outputSchemas?: 'compact' | 'full';
  /**
   * The directories file arguments (`logo`, `banner_image`) may be read from, symlinks resolved;
   * default: the working directory, unless it is the root or the home directory (then none).
   */
  allowDirs?: readonly string[];
  /** The largest file argument read, in bytes; default 5 MiB (the API's upload limit). */
  maxFileBytes?: number;
  /**
   * Milliseconds a tool call (its retries and pages included) or the OpenAPI resource may take
   * before it is given up, so that the host gets an answer before its own request timeout (60 s
   * in the MCP SDK's client); default {@link CALL_BUDGET_MS}.
   */
  callBudgetMs?: number;
}

/** A call's time budget: under the 60 s an MCP host waits for a request by default. */
export const CALL_BUDGET_MS = 50_000;

/**
 * How long the user has to answer a confirmation: a person reads the question, perhaps looks
 * something up, and answers; the MCP SDK's default request timeout (60 s) is a machine's. The
 * host's own timeout of the `tools/call` still applies, and cancelling the call closes the question.
 */
export const CONFIRM_TIMEOUT_MS = 10 * 60_000;

/** The URI of the OpenAPI document resource. */
export const OPENAPI_URI = 'marketplace://openapi.json';

/** Where the resource schemas are: `marketplace://schemas/<name>`. */
const SCHEMAS = 'marketplace://schemas/';

/** The URI of the JSON Schema of a resource the tools return (`Campaign`): one a few KB long. */
export const schemaUri = (name: string): string => `${SCHEMAS}${name}`;

/** The tool whose items give the `organization_id` every organization-scoped tool takes. */
const ORGANIZATIONS_LIST = 'organizations_list';

/**
 * The operations a server with these options exposes, in table order. `organizations_list` stays
 * whenever a tool that takes an `organization_id` is exposed, whatever the groups: nothing else
 * gives a model that id.
 */
export function selectOperations({
  readOnly = false,
  groups,
}: Pick<ServerOptions, 'readOnly' | 'groups'>): Operation[] {
  const chosen = operations.filter(
    (op) => (!readOnly || op.readOnly) && (!groups || groups.includes(op.sdkPath[0] as string)),
  );
  const scoped = chosen.some((op) => op.pathParams.includes('organization_id'));
  return operations.filter((op) => chosen.includes(op) || (scoped && op.toolName === ORGANIZATIONS_LIST));
}

/** The server's instructions, naming only tools it exposes. */
function instructionsOf(exposed: readonly Operation[]): string {
  const first = exposed.some((op) => op.toolName === ORGANIZATIONS_LIST)
    ? ` (${ORGANIZATIONS_LIST} first)`
    : '';
  return (
    `Tools for the creator-marketplace API, one per endpoint. Ids come from the list tools${first}. ` +
    'Lists return one page; pass `page`, or `max_items` to walk pages (then go on with ' +
    '`page: next_page, skip: next_skip`). Where a schema says number, integer or boolean, a number ' +
    'or a boolean given as a JSON string ("500", "true") is taken too; any other text is refused. ' +
    'A "1"/"0" flag (purge_logo, purge_banner_image) takes true/false too.'
  );
}

/**
 * Tools that reach outside the marketplace: collab create's `query_website` has the API fetch any
 * web page (to prefill the draft), whatever the page says.
 */
const OPEN_WORLD: ReadonlySet<string> = new Set(['collabs_create']);

/** The annotations of a tool, all set explicitly. */
export function annotationsOf(op: Operation): ToolAnnotations {
  const method = op.endpoint.method;
  return {
    title: op.title,
    readOnlyHint: method === 'GET',
    // MCP: false means "only additive updates"; an update, a delete and a transition overwrite.
    destructiveHint: op.kind === 'update' || op.kind === 'delete' || op.kind === 'transition',
    idempotentHint: method === 'GET' || method === 'PATCH' || method === 'DELETE',
    openWorldHint: OPEN_WORLD.has(op.toolName),
  };
}

/** An integer argument from `min` to `max`, refused in the words of the other arguments' errors. */
const integerFrom = (min: number, max: number) => {
  const range = `must be an integer from ${min} to ${max}`;
  return z
    .number({ error: range })
    .int({ error: range })
    .min(min, { error: range })
    .max(max, { error: range });
};

/**
 * The most items one list call returns: 25 pages. A result is read whole into the model's context
 * (500 collabs are about 450 KB of JSON); more is had by going on from `next_page`.
 */
const MAX_ITEMS = 500;

const maxItems = integerFrom(1, MAX_ITEMS)
  .optional()
  .meta({
    description:
      `Walk the following pages too, until this many items (at most ${MAX_ITEMS}) or the last page. When ` +
      'it ends inside a page, `next_page` is that page and `next_skip` the items of it already returned: ' +
      'pass both back to go on',
  });
const skip = integerFrom(0, PAGE_SIZE - 1)
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
      'the same key when retrying the same call. Without it every call has a new random key: a retried call may run twice',
  });

/**
 * The `Idempotency-Key` of a POST tool call: the `idempotency_key` argument; else none (the call
 * then sends a random one), so a retry counts once only when the model passes the same key. MCP
 * gives a call no identity that survives a retry: a host's retry is a new JSON-RPC request with a
 * new id, which is why that id is not used. One extension is kept: a host that puts a `requestId`
 * of its own in `_meta` (not an MCP field; no known host sends one) gets a key derived from it,
 * the session (`scope`, random per MCP session: hosts number their requests from 1 in every
 * session, and the server keeps a key 24 hours) and the arguments (a request id used again for
 * another call is another call, not a conflict).
 */
export function idempotencyKeyOf(
  op: Operation,
  given: unknown,
  meta: Readonly<Record<string, unknown>> | undefined,
  scope: string,
  args: Readonly<Record<string, unknown>>,
): string | undefined {
  if (typeof given === 'string') return given;
  const id = meta?.requestId;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  const call = [scope, op.toolName, JSON.stringify(id), JSON.stringify(args)].join('\n');
  return `mcp-${createHash('sha256').update(call).digest('hex')}`;
}

type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema of an output schema as tools list it (draft-07, as the MCP SDK writes them; the
 * input's is the SDK's `inputJsonSchema`), each field of a resource saying what it means
 * (`RESOURCE_FIELD_DESCRIPTIONS`: that an amount is in the minor unit of its currency).
 */
const outputJsonSchema = (schema: z.ZodType): JsonSchema => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io: 'output',
    target: 'draft-7',
  }) as JsonSchema;
  return withFieldDescriptions(rest, schema);
};

/** The component a resource schema is published as (`Campaign`), for a compact output schema. */
const componentOf = (schema: z.ZodType | undefined) =>
  (schema && contractRegistry.get(schema)?.id) ?? undefined;

/** The names of the resource schemas the tools return (`Campaign`, `CollabSummary`, …), sorted. */
export function returnedSchemas(ops: readonly Operation[]): string[] {
  const names = ops.flatMap((op) => [componentOf(op.item), componentOf(op.response)]);
  return [...new Set(names.filter((name): name is string => name !== undefined))].sort();
}

/**
 * The tool's output schema, compact: `data` names the resource's schema, which the resource
 * `marketplace://schemas/<name>` gives whole (a few KB; also in the OpenAPI document, 240 KB),
 * instead of repeating it — two thirds of the tool list were these schemas. `full`: the whole
 * schema of the resource, as `outputSchemaOf` says.
 */
export function outputJsonSchemaOf(op: Operation, mode: 'compact' | 'full' = 'compact'): JsonSchema {
  if (mode === 'full') return outputJsonSchema(outputSchemaOf(op));
  const see = (id: string | undefined) => (id ? ` (schema \`${id}\`: resource ${schemaUri(id)})` : '');
  const int = { type: 'integer' };
  if (op.kind === 'list')
    return {
      type: 'object',
      properties: {
        data: {
          type: 'array',
          items: { type: 'object' },
          description: `The items${see(componentOf(op.item))}`,
        },
        page: int,
        total_pages: int,
        total_count: int,
        next_page: { anyOf: [int, { type: 'null' }] },
        next_skip: int,
      },
      required: ['data', 'page', 'total_pages', 'total_count', 'next_page', 'next_skip'],
    };
  const data = !op.response
    ? { type: 'null', description: 'Nothing (the API answered 204 No Content)' }
    : {
        // `anyOf`, not a list of types: some hosts map tool schemas onto a one-`type` dialect.
        ...(op.endpoint.emptyNotFound
          ? { anyOf: [{ type: 'object' }, { type: 'null' }] }
          : { type: 'object' }),
        description: `The ${op.kind === 'transition' ? 'resource read again after the change' : 'resource'}${see(componentOf(op.response))}${op.endpoint.emptyNotFound ? '; null when there is none' : ''}`,
      };
  return { type: 'object', properties: { data }, required: ['data'] };
}

/** What a tool gives back, said after the table's prose (which speaks of HTTP statuses). */
function resultText(op: Operation): string {
  switch (op.kind) {
    case 'list':
      return 'The tool returns one page as `data`, with `page`, `total_pages`, `total_count`, `next_page` and `next_skip`.';
    case 'transition':
      return 'The tool follows no redirect: it returns the resource read again after the change.';
    case 'delete':
      return 'The tool returns `{ "data": null }` once it is deleted.';
    default:
      return op.endpoint.emptyNotFound
        ? 'The tool returns `{ "data": null }` when there is none.'
        : 'The tool returns the resource as `data`.';
  }
}

/** `text` as a sentence: with its full stop. */
const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** A tool as `tools/list` gives it: name, title, the table's prose, schemas and annotations. */
export function toolOf(
  op: Operation,
  input: z.ZodObject,
  outputSchemas: 'compact' | 'full' = 'compact',
): Tool {
  // Said for the model: `--yes` is the user's to give, when starting the server.
  const asking = asks(op)
    ? ' The user is asked to confirm before it runs (through the host). When the host cannot ask, the call is refused: only the user can let such calls run without asking, by restarting the server with --yes.'
    : '';
  // An argument the tool does not take is refused (`parseArguments`): the schema says so too
  // (`additionalProperties: false`), so that a host's validator or a model reading it knows before calling.
  const inputSchema = inputJsonSchema(op, input);
  return {
    name: op.toolName,
    title: op.title,
    // The title's sentence first: hosts that pass a model only a tool's name and description
    // (OpenAI-style function calling) would otherwise not say what it does.
    description: `${sentence(op.title)} ${op.description} ${resultText(op)}${asking}`,
    inputSchema: inputSchema as Tool['inputSchema'],
    outputSchema: outputJsonSchemaOf(op, outputSchemas) as Tool['outputSchema'],
    annotations: annotationsOf(op),
  };
}

/**
 * Tools that make a credential and hand it to the model (an access token is shown once, in the
 * result): a model steered by what it read could mint a write token and pass it on, so the user
 * confirms it as a delete.
 */
const MINTS_CREDENTIALS: ReadonlySet<string> = new Set(['me_access_tokens_create']);

/** Deletes, transitions and the tools that mint a credential ask the user first. */
export const asks = (op: Operation): boolean =>
  op.kind === 'delete' || op.kind === 'transition' || MINTS_CREDENTIALS.has(op.toolName);

/** What a tool that asks does, for the refusal on a host that cannot ask. */
const whatItDoes = (op: Operation): string =>
  op.kind === 'delete'
    ? 'deletes a resource'
    : op.kind === 'transition'
      ? 'changes the state of a resource'
      : 'makes a credential (an access token, shown once in the result)';

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
 * What a write tool's `401` adds: the API tells a read token from another only by that answer, and
 * the server cannot ask which one it was given, so the user is told how to list only the tools the
 * token can use.
 */
const READ_TOKEN_HINT =
  " If this server's token is a read token, the user can restart the MCP server with --read-only, so that only the tools it can use are listed.";

/**
 * A failure as a tool result (never a protocol error): the JSON of `describeError` (status,
 * `errors` or `error`, hint), the one the CLI prints too, but with a hint that names the fields of
 * `errors` without repeating their messages (a model reads both). `settable`: the tool's arguments;
 * `call`: the tool's operation (a write's `401` says what a read token needs).
 */
export function errorResult(
  error: unknown,
  settable?: ReadonlySet<string>,
  call?: FailedCall & { readOnly?: boolean; endpoint?: { unprocessableWhen: string | undefined } },
): CallToolResult {
  const detail = describeError(error, settable, call, { fieldNamesOnly: true });
  if (detail.status === 401 && call?.readOnly === false && detail.hint !== undefined)
    return failure({ ...detail, hint: `${detail.hint}${READ_TOKEN_HINT}` });
  // A `422` on `base` names no field to look at: the operation's rule (`unprocessableWhen` of the
  // table, as its description says it) tells what to change first, e.g. delete an organization's
  // collabs before it. A `422` on a field has that field's own hint; a reused idempotency key, its own.
  const rule = call?.endpoint?.unprocessableWhen;
  const situation = detail.errors?.base?.some((message) => message !== IDEMPOTENCY_KEY_REUSED_MESSAGE);
  if (detail.status === 422 && situation && rule && detail.hint !== undefined)
    return failure({ ...detail, hint: `${detail.hint} It is refused when ${rule}.` });
  return failure(detail);
}

const failure = (detail: ErrorDescription): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: JSON.stringify(detail) }],
});

/**
 * The arguments of a call checked against the tool's input schema: the parsed arguments, or the
 * result to answer with, in the JSON of any other failure (an argument the tool does not take is
 * refused too, not dropped). `advertised`: the input schema `tools/list` gives, which says where a
 * number or a boolean sent as text is taken.
 */
export function parseArguments(
  schema: z.ZodObject,
  given: Readonly<Record<string, unknown>> | undefined,
  advertised: Tool['inputSchema'],
): { args: Record<string, unknown> } | { refused: CallToolResult } {
  const settable = new Set(Object.keys(schema.shape));
  // A number or a boolean sent as text is taken where the advertised schema says so (`typedFromText`).
  const parsed = schema.safeParse(typedFromText(advertised, given ?? {}));
  const unknown = Object.keys(given ?? {}).filter((name) => !settable.has(name));
  if (parsed.success && unknown.length === 0) return { args: parsed.data };
  // A required argument left out says so (zod's "expected string, received undefined" does not).
  const issues = parsed.success
    ? []
    : parsed.error.issues.map((issue) =>
        issue.path.length === 1 && given?.[String(issue.path[0])] === undefined
          ? { ...issue, message: 'is required' }
          : issue,
      );
  const errors = toFieldErrors(issues);
  // An unknown name is repeated cut short: it may be any length.
  const shown = unknown.map((name) => clip(name));
  const takes = settable.size > 0 ? [...settable].join(', ') : 'no arguments';
  // The names it may have meant first (`nearNames`, as the CLI and the SDK's operations say).
  unknown.forEach((name, i) => {
    const near = nearNames(name, settable).slice(0, 3);
    const meant = near.length > 0 ? `: did you mean ${near.join(' or ')}?` : '';
    errors[shown[i] as string] = [`is not an argument of this tool${meant} (it takes ${takes})`];
  });
  return { refused: errorResult(new RequestValidationError(errors), new Set([...settable, ...shown])) };
}

/**
 * The message of a call of a tool this server does not list (a protocol error, as the MCP spec
 * has it for an unknown tool): a tool that `--read-only` or `--tools` hides says so, and why; a
 * mistyped one names the exposed tools it may have meant (`nearNames`, as the CLI does).
 */
function notExposed(
  name: string,
  exposed: readonly Operation[],
  { readOnly = false, groups }: Pick<ServerOptions, 'readOnly' | 'groups'>,
): string {
  const op = operations.find((o) => o.toolName === name);
  if (!op) {
    // A name of any length is repeated cut short; what is suggested is what this server lists.
    const near = nearNames(
      name,
      exposed.map((o) => o.toolName),
    ).slice(0, 3);
    return near.length > 0
      ? `Tool ${clip(name)} not found. Did you mean ${near.join(' or ')}?`
      : `Tool ${clip(name)} not found: tools/list gives the tools of this server.`;
  }
  const why = [
    readOnly && !op.readOnly && '--read-only (only the read tools)',
    groups && !groups.includes(op.sdkPath[0] as string) && `--tools ${groups.join(',')} (only these groups)`,
  ].filter(Boolean);
  return `Tool ${name} is not exposed: the server runs with ${why.join(' and ')}`;
}

/**
 * A protocol error this server answers with. The SDK sends an error's `message` as the JSON-RPC
 * message, and `McpError` puts `MCP error <code>: ` before its own; the client's `McpError` puts it
 * there again (`MCP error -32602: MCP error -32602: …`). So the message sent is the text alone.
 */
function protocolError(code: ErrorCode, message: string): McpError {
  const error = new McpError(code, message);
  error.message = message;
  return error;
}

/** What a JSON value is, as a message names it. */
const kindOfValue = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;

/**
 * `tools/call` as this server takes it: a `name` that is not a string (or none) and `arguments`
 * that are not an object (`null`, a string) are refused as invalid params (-32602) saying so.
 * With the SDK's own schema they were a zod dump as an internal error (-32603), before any handler
 * of this package could answer. Left out (MCP makes `arguments` optional), they are `{}`:
 * `optional()`, since a bare `z.unknown()` key in an object this transform follows is refused
 * when missing.
 */
const ToolCallSchema = CallToolRequestSchema.extend({
  params: CallToolRequestSchema.shape.params
    .extend({ name: z.unknown().optional(), arguments: z.unknown().optional() })
    .transform((params) => {
      const { name, arguments: given } = params;
      // Thrown, not a zod issue: the SDK answers an McpError with its own code.
      if (typeof name !== 'string')
        throw protocolError(
          ErrorCode.InvalidParams,
          `tools/call needs the tool's name as a string in params.name (tools/list lists them), not ${name === undefined ? 'none' : kindOfValue(name)}.`,
        );
      if (given === undefined || (typeof given === 'object' && given !== null && !Array.isArray(given)))
        return { ...params, name, arguments: given as Record<string, unknown> | undefined };
      throw protocolError(
        ErrorCode.InvalidParams,
        `The arguments of tools/call must be a JSON object of the tool's arguments by name ({} for none), not ${kindOfValue(given)}.`,
      );
    }),
});

/**
 * A call given up after its budget: said as a result the model can act on, before the host's own
 * timeout would answer with a protocol error. A POST was sent with an idempotency key, so calling
 * again with the same `idempotency_key` cannot run it twice.
 */
function overBudget(op: Operation, budgetMs: number, key: string | undefined): CallToolResult {
  return failure({
    status: null,
    error: `No complete answer from the API within ${budgetMs / 1000} s; the call was given up.`,
    hint: key
      ? `The API is slow or unreachable, and whether the call took effect is unknown: call again with idempotency_key "${key}", which runs it at most once.`
      : op.endpoint.method !== 'GET'
        ? 'The API is slow or unreachable, and whether the change was made is unknown: read the resource before calling again.'
        : op.kind === 'list'
          ? 'The API is slow or unreachable: try again later, or with a smaller max_items.'
          : 'The API is slow or unreachable: try again later.',
  });
}

/**
 * Tools that revoke a credential. The API keeps no token's value, so whether it is the one this
 * server runs with cannot be told: the question says what revoking that one would do.
 */
const REVOKES_CREDENTIALS: ReadonlySet<string> = new Set(['me_access_tokens_delete']);

const OWN_TOKEN_WARNING =
  ' If it is the token this server runs with (MARKETPLACE_TOKEN), every later call fails (401) until the server is restarted with another.';

/** What a question names, read first, and the schema it has (which fields are a lifecycle). */
interface Target {
  resource: unknown;
  schema: z.ZodType | undefined;
}

/** A value that cannot pass for words of the question: an id's or an enum's letters, digits, `_` and `-`. */
const PLAIN = /^[\w-]{1,100}$/;

/** A value that should be one of a closed set (a state, a platform): bare when it is `PLAIN`, else quoted. */
const word = (value: string): string => (PLAIN.test(value) ? value : quoted(value));

/** An e-mail address that is no more than one: bare between `<` and `>`, as mail shows it. */
const EMAIL = /^[\w.+-]{1,64}@[\w.-]{1,255}$/;

/** Whether an argument takes one of a closed set of values (`permission`: read or write). */
const isEnum = (schema: z.ZodType | undefined): boolean =>
  (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault ? schema.unwrap() : schema) instanceof
  z.ZodEnum;

/**
 * The question a delete, a transition or a credential's making asks first. Every text in it that
 * the model (or whoever wrote a name) chose is `quoted`; only ids and values of a closed set that
 * are plain words are shown bare, so the question's own words, and what they say the call does,
 * cannot be faked.
 */
function confirmation(op: Operation, args: Record<string, unknown>, target?: Target): string {
  const shape = op.input.shape as Record<string, z.ZodType>;
  const bare = (name: string) =>
    typeof args[name] === 'string' &&
    PLAIN.test(args[name]) &&
    (op.pathParams.includes(name) || isEnum(shape[name]));
  const shownValue = (name: string) => (bare(name) ? (args[name] as string) : quoted(String(args[name])));
  // A credential's request says what it would allow: the arguments of a closed set (its
  // permission) first, then what the model wrote; a delete's or a transition's, which resource.
  const shown = MINTS_CREDENTIALS.has(op.toolName)
    ? Object.keys(args).sort((a, b) => Number(bare(b)) - Number(bare(a)))
    : op.pathParams;
  const ids = shown.map((name) => `${name}=${shownValue(name)}`).join(', ');
  const label = target ? labelOf(target) : '';
  const warning = REVOKES_CREDENTIALS.has(op.toolName) ? OWN_TOKEN_WARNING : '';
  return `${op.title}${label ? `: ${label}` : ''}${ids ? ` (${ids})` : ''}?${warning}`;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** The texts among `values`, joined; undefined when there is none. */
const joined = (values: readonly unknown[], separator: string): string | undefined =>
  values.map(text).filter(Boolean).join(separator) || undefined;

/**
 * What a user recognises a resource by, in this order; each gives one part of the label or none.
 * Field names, not resource names: a new resource with such fields is labelled too.
 */
const RECOGNISED_BY: ReadonlyArray<(resource: Record<string, unknown>) => string | undefined> = [
  // Its name (an organization, a collab, a campaign), or what it is for (an access token).
  ({ name, description }) => {
    const own = text(name) ?? text(description);
    return own && quoted(own);
  },
  // The person of a membership: `"Ann" <ann@example.com>`.
  ({ user }) => {
    if (typeof user !== 'object' || user === null) return undefined;
    const { name, email } = user as Record<string, unknown>;
    const address = text(email) && (EMAIL.test(email as string) ? email : quoted(email as string));
    return joined([text(name) && quoted(name as string), address && `<${address}>`], ' ');
  },
  // A social account: its platform (one of a list) and the account's address.
  ({ platform_id, account_url }) =>
    text(account_url) &&
    joined([text(platform_id) && word(platform_id as string), quoted(account_url as string)], ' '),
  // An address: its lines, as one quoted text (its `state` is the region here, not a status).
  (r) => {
    const lines = joined(
      [r.address_one, r.address_two, r.city, r.state, r.postal_code, r.country_code],
      ', ',
    );
    return text(r.address_one) && lines && quoted(lines);
  },
];

/**
 * A resource's label for its question (`"Acme", draft`): what the user recognises it by, then its
 * lifecycle — a `state` or `status` its schema types as an enum (`draft`, `active`); a free-text
 * one, such as an address's `state`, is no lifecycle.
 */
function labelOf({ resource, schema }: Target): string {
  if (typeof resource !== 'object' || resource === null) return '';
  const fields = resource as Record<string, unknown>;
  const shape = schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {};
  const lifecycle = ['state', 'status'].find((f) => shape[f] instanceof z.ZodEnum && text(fields[f]));
  return [...RECOGNISED_BY.map((part) => part(fields)), lifecycle && word(fields[lifecycle] as string)]
    .filter(Boolean)
    .join(', ');
}

/**
 * The show operation that reads what a delete or a transition acts on (the transition's own, or
 * the `GET` of the same path), if there is one.
 */
function showOf(op: Operation): Operation | undefined {
  const path = op.endpoint.show?.path ?? op.endpoint.path;
  return operations.find((o) => o.endpoint.method === 'GET' && o.kind !== 'list' && o.endpoint.path === path);
}

/** The list of the collection a resource at `…/:id` is in (a resource without a show endpoint is found there). */
function listOf(op: Operation): Operation | undefined {
  if (!op.endpoint.path.endsWith('/:id')) return undefined;
  const path = op.endpoint.path.slice(0, -'/:id'.length);
  return operations.find((o) => o.kind === 'list' && o.endpoint.path === path);
}

/**
 * Reads what a delete or a transition acts on, for its question: through its show operation (a
 * `404` throws: it is not there; so does the `null` of a show whose 404 is empty, such as the
 * shipping address of a user who has none), else found by id in its collection's list (an access
 * token has no show endpoint); undefined when neither can be had, and the question names ids only.
 */
async function readTarget(
  client: Marketplace,
  op: Operation,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<Target | undefined> {
  const idsOf = (reader: Operation) =>
    Object.fromEntries(reader.pathParams.map((name) => [name, args[name]]));
  const show = showOf(op);
  if (show) {
    const { data, response } = (await callOperation(client, show, idsOf(show), { signal })) as {
      data: unknown;
      response: Response | undefined;
    };
    if (data === null && show.endpoint.emptyNotFound && response?.status === 404)
      throw new NotFoundError(404, response.headers, undefined);
    return { resource: data, schema: show.response };
  }
  const list = listOf(op);
  if (!list) return undefined;
  const { data } = (await callOperation(client, list, idsOf(list), {
    signal,
    maxItems: MAX_ITEMS,
  })) as ListResult;
  const resource = data.find((item) => (item as { id?: unknown } | null)?.id === args.id);
  return resource === undefined ? undefined : { resource, schema: list.item };
}

export function createServer(options: ServerOptions): McpServer {
  const {
    yes = false,
    allowDirs = defaultAllowDirs(),
    maxFileBytes = DEFAULT_MAX_FILE_BYTES,
    outputSchemas = 'compact',
    callBudgetMs = CALL_BUDGET_MS,
  } = options;
  // The scope of the idempotency keys derived from request ids: this session's own.
  const session = randomUUID();
  const readFile = guardedFileReader({ allowDirs, maxBytes: maxFileBytes });
  // The SDK reads MARKETPLACE_TOKEN / MARKETPLACE_BASE_URL for what is not given (and throws without them).
  const client = new Marketplace({
    ...(options.token && { token: options.token }),
    ...(options.baseUrl && { baseUrl: options.baseUrl }),
  });
  const baseUrl = withoutTrailingSlashes(options.baseUrl || process.env.MARKETPLACE_BASE_URL || '');
  const exposed = selectOperations(options);
  const server = new McpServer(
    { name: 'marketplace', title: 'Creator Marketplace', version: VERSION },
    { instructions: instructionsOf(exposed) },
  );

  // The tools are listed and called here, not through `registerTool`: the list is made once, with
  // compact output schemas, and argument errors are answered in the JSON of every other failure.
  const tools = new Map(
    exposed.map((op) => {
      const input = inputSchemaOf(op);
      return [op.toolName, { op, input, tool: toolOf(op, input, outputSchemas) }] as const;
    }),
  );
  const listed = [...tools.values()].map(({ tool }) => tool);
  server.server.registerCapabilities({ tools: {} });
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.server.setRequestHandler(ToolCallSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = tools.get(request.params.name);
    if (!tool)
      throw protocolError(ErrorCode.InvalidParams, notExposed(request.params.name, exposed, options));
    const { op, input } = tool;
    const parsed = parseArguments(input, request.params.arguments, tool.tool.inputSchema);
    if ('refused' in parsed) return parsed.refused;
    const { max_items, skip, idempotency_key, ...args } = parsed.args;
    // A random key when none is given or derived (the SDK's own would be one), so that a call
    // given up can name the key that makes calling again safe.
    const key = op.endpoint.idempotent
      ? (idempotencyKeyOf(op, idempotency_key, request.params._meta, session, args) ?? `mcp-${randomUUID()}`)
      : undefined;
    if (!yes && asks(op)) {
      const refused = await confirm(server, client, op, args, {
        cancelled: extra.signal,
        requestId: extra.requestId,
        budgetMs: callBudgetMs,
        overBudget: overBudget(op, callBudgetMs, key),
      });
      if (refused) return refused;
    }
    // The budget starts once the user has answered: a cancellation by the host stops the call too.
    const budget = AbortSignal.timeout(callBudgetMs);
    try {
      const result = await callOperation(client, op, args, {
        readFile,
        signal: AbortSignal.any([extra.signal, budget]),
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
      if (budget.aborted && !extra.signal.aborted) return overBudget(op, callBudgetMs, key);
      return errorResult(error, new Set(Object.keys(input.shape)), op);
    }
  });

  // Each resource schema the exposed tools return, as the JSON Schema a tool's `full` output
  // schema holds: what `data` is, without reading the whole OpenAPI document.
  const returned = returnedSchemas(exposed);
  const readOpenApiResource = async (signal: AbortSignal): Promise<ReadResourceResult> => ({
    contents: [
      {
        uri: OPENAPI_URI,
        mimeType: 'application/json',
        text: await readOpenApi(`${baseUrl}/openapi.json`, signal, callBudgetMs),
      },
    ],
  });
  const readSchema = (name: string): ReadResourceResult => {
    const found = returned.includes(name) ? componentById(name) : undefined;
    if (!found) {
      const near = nearNames(name, returned).slice(0, 3);
      const meant = near.length > 0 ? `. Did you mean ${near.join(' or ')}?` : ':';
      throw protocolError(
        ErrorCode.InvalidParams,
        `No schema ${clip(name)}${meant} resources/list gives the schemas (${returned.join(', ')}).`,
      );
    }
    return {
      contents: [
        {
          uri: schemaUri(name),
          mimeType: 'application/schema+json',
          text: JSON.stringify({ title: name, ...outputJsonSchema(found.schema) }),
        },
      ],
    };
  };
  // Registered for `resources/list`, `resources/templates/list` and completion; `resources/read`
  // is this package's own handler, below.
  server.registerResource(
    'openapi',
    OPENAPI_URI,
    {
      title: 'OpenAPI document',
      description: 'The OpenAPI 3.1 document of the marketplace API, from the server',
      mimeType: 'application/json',
    },
    (_uri, extra) => readOpenApiResource(extra.signal),
  );
  server.registerResource(
    'schema',
    new ResourceTemplate(schemaUri('{name}'), {
      list: () => ({
        resources: returned.map((name) => ({
          uri: schemaUri(name),
          name: `schema ${name}`,
          title: `${name} (JSON Schema)`,
          mimeType: 'application/schema+json',
        })),
      }),
      complete: { name: (value) => returned.filter((name) => name.startsWith(value)) },
    }),
    {
      title: 'Resource schemas',
      description:
        'The JSON Schema of a resource the tools return as `data` (`Campaign`, `CollabSummary`, …)',
      mimeType: 'application/schema+json',
    },
    (_uri, variables) => readSchema(String(variables.name)),
  );
  // `resources/read` answered here, replacing the SDK's (which `registerResource` installed): an
  // unknown URI was its bare `Resource … not found`, sent inside `MCP error -32602: ` so that the
  // client showed the prefix twice, and a URI that is no URL an internal error (`Invalid URL`).
  // Now one message saying what there is (-32602, as SEP-2164 has it).
  const unknownResource = (uri: string) =>
    protocolError(
      ErrorCode.InvalidParams,
      `Resource ${clip(uri)} not found: this server has ${OPENAPI_URI} (the OpenAPI document) and ` +
        `${schemaUri('{name}')} (the JSON Schema of a resource the tools return; name: ${returned.join(', ')}); ` +
        'resources/list gives them.',
    );
  server.server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => {
    const given = request.params.uri;
    // Read as a URL (`MARKETPLACE://…` is `marketplace://…`), as the SDK's handler did.
    const uri = URL.canParse(given) ? new URL(given).href : given;
    if (uri === OPENAPI_URI) return readOpenApiResource(extra.signal);
    const name = uri.startsWith(SCHEMAS) ? uri.slice(SCHEMAS.length) : '';
    if (name !== '' && !name.includes('/')) return readSchema(name);
    throw unknownResource(given);
  });
  // `registerResource` advertises `listChanged: true`; this list is made once and never changes.
  server.server.registerCapabilities({ resources: { listChanged: false } });
  return server;
}

/** The tool call a confirmation belongs to. */
interface AskedFor {
  /** The host's cancellation of the call (`extra.signal`): it closes the question too. */
  cancelled: AbortSignal;
  /** The JSON-RPC id of the `tools/call` request. */
  requestId: RequestId;
  /** The budget of reading what the question names (the user's answer has its own time). */
  budgetMs: number;
  /** The answer when that reading is over its budget. */
  overBudget: CallToolResult;
}

/** The base URL the client was given (the SDK has checked it), without its trailing slashes. */
const withoutTrailingSlashes = (baseUrl: string): string => baseUrl.replace(/\/+$/, '');

/**
 * The OpenAPI document, read from the API within `budgetMs`. A resource read has no tool result:
 * a failure is a protocol error, whose message names the URL and what to check.
 */
async function readOpenApi(url: string, cancelled: AbortSignal, budgetMs: number): Promise<string> {
  const budget = AbortSignal.timeout(budgetMs);
  const failed = (why: string) =>
    protocolError(ErrorCode.InternalError, `The OpenAPI document could not be read from ${url}: ${why}`);
  try {
    const response = await fetch(url, {
      headers: { Accept: 'application/json' },
      signal: AbortSignal.any([cancelled, budget]),
    });
    if (response.status !== 200) throw failed(`the API answered ${response.status}.`);
    return await response.text();
  } catch (error) {
    if (error instanceof McpError || cancelled.aborted) throw error;
    if (budget.aborted) throw failed(`no complete answer within ${budgetMs / 1000} s.`);
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    throw failed(
      `the API did not answer${typeof code === 'string' ? ` (${code})` : ''}. Check MARKETPLACE_BASE_URL and that the API is running.`,
    );
  }
}

/**
 * Asks the user to confirm through elicitation. Resolves to the result to return instead of
 * running the call (declined, or a host that cannot ask), or undefined to go on.
 */
async function confirm(
  server: McpServer,
  client: Marketplace,
  op: Operation,
  args: Record<string, unknown>,
  { cancelled, requestId, budgetMs, overBudget }: AskedFor,
): Promise<CallToolResult | undefined> {
  if (!server.server.getClientCapabilities()?.elicitation)
    return failure({
      status: null,
      error: `${op.toolName} ${whatItDoes(op)} and needs the user's confirmation, which this host cannot ask for (it does not support elicitation); nothing was changed.`,
      hint: 'Tell the user it was not done: this host cannot ask for confirmation, and only the user can let such calls run without asking, by restarting the server with --yes.',
    });
  // The user is asked about what is there, as the user knows it, not by ids alone; what is not
  // there (a 404) is said without asking.
  let target: Target | undefined;
  if (!MINTS_CREDENTIALS.has(op.toolName)) {
    // Reading what the question names has the call's budget, and the host may cancel it.
    const budget = AbortSignal.timeout(budgetMs);
    try {
      target = await readTarget(client, op, args, AbortSignal.any([cancelled, budget]));
    } catch (error) {
      if (budget.aborted && !cancelled.aborted) return overBudget;
      return errorResult(error, new Set(op.pathParams), op);
    }
  }
  let answer: ElicitResult;
  try {
    // Related to the tool call: over Streamable HTTP the question goes on that call's own stream,
    // which the host is reading, not on the optional GET stream (a client may keep none). The
    // call's cancellation cancels the question: the host takes its dialog down.
    answer = await server.server.elicitInput(
      {
        message: confirmation(op, args, target),
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean', title: 'Confirm', description: op.title } },
          required: ['confirm'],
        },
      },
      { relatedRequestId: requestId, signal: cancelled, timeout: CONFIRM_TIMEOUT_MS },
    );
  } catch (error) {
    return notConfirmed(error);
  }
  if (answer.action === 'accept' && answer.content?.confirm === true) return undefined;
  return failure({ status: null, error: 'The user did not confirm; nothing was changed.' });
}

/**
 * A question that failed (no answer in time, the host's dialog failing, an answer that is not the
 * one asked for) is a refusal: said as a result the model can act on, never a protocol error.
 */
function notConfirmed(error: unknown): CallToolResult {
  // The host's message is cut short: it is the host's text, of any length.
  const message = clip(error instanceof Error ? error.message : String(error), 200);
  const why =
    error instanceof McpError && error.code === ErrorCode.RequestTimeout
      ? `the user gave no answer within ${CONFIRM_TIMEOUT_MS / 60_000} minutes`
      : `the host could not ask the user (${message})`;
  return failure({
    status: null,
    error: `Not confirmed: ${why}; nothing was sent.`,
    hint: 'Call again when the user can answer, or ask the user in the conversation first.',
  });
}
