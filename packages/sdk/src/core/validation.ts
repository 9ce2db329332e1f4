import { type BodySpec, type Endpoint, type FieldErrors, fastCheck, toFieldErrors } from '@app/schemas';
import type * as z from 'zod';
import { nearNames } from '../internal/near-names.js';
import { objectShape } from '../internal/object-shape.js';
import type { CallOptions, ListOptions } from '../internal/options.js';
import { RequestValidationError, ResponseValidationError } from './error.js';
import { splitFiles, toFormData } from './uploads.js';

/** What ky sends: a JSON payload, a multipart form, or nothing. */
export type EncodedBody = { json?: unknown; body?: FormData };

/**
 * Checks a call's parameters, query and payload against the endpoint's schemas before anything is
 * sent; a mismatch throws the `errors` map a 422 would carry.
 */
export function validateRequest(
  endpoint: Endpoint,
  input: { params?: object; query?: object; body?: unknown },
): { params: Record<string, string>; query: Record<string, unknown>; body: EncodedBody } {
  return {
    params: validateParams(endpoint, input.params ?? {}),
    query: checkQuery(endpoint, input.query ?? {}),
    body: endpoint.body ? encodeBody(endpoint, endpoint.body, input.body) : {},
  };
}

/** A call's path parameters, checked against the endpoint's (a blank id is `can't be blank`). */
export function validateParams(endpoint: Endpoint, params: object): Record<string, string> {
  return checkAsIs(endpoint.params, params) as Record<string, string>;
}

/**
 * The query, checked. zod would strip a key the endpoint's query does not have, and with it a
 * caller's mistake (request options passed where the query goes): such a key is refused instead
 * (one given as `undefined` is as if not given). The fast check accepts no such key, so only a
 * query it is not sure of is looked at for one.
 */
function checkQuery(endpoint: Endpoint, query: object): Record<string, unknown> {
  // The URL lists a query's keys in its order: zod's output has the schema's, a caller's object
  // its own. A query of one key at most (every one in the table) has a single order.
  if (keyCount(endpoint.query) <= 1 && fastCheck(endpoint.query)(query))
    return query as Record<string, unknown>;
  const shape = endpoint.query.shape;
  const errors: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && !Object.hasOwn(shape, key)) errors[key] = [notAQueryParameter(endpoint, key)];
  if (Object.keys(errors).length > 0) throw new RequestValidationError(errors);
  return check(endpoint.query, query) as Record<string, unknown>;
}

/** The options a call takes in its last argument, which a query might be given by mistake. */
const OPTION_NAMES: ReadonlySet<string> = new Set<keyof CallOptions | keyof ListOptions>([
  'signal',
  'timeout',
  'maxRetries',
  'cache',
  'idempotencyKey',
  'headers',
  'testHelpersKey',
  'concurrency',
]);

function notAQueryParameter(endpoint: Endpoint, key: string): string {
  const where = `is not a query parameter of ${endpoint.method} ${endpoint.path}.json`;
  if (OPTION_NAMES.has(key)) return `${where}; request options go in the last argument`;
  const names = Object.keys(endpoint.query.shape);
  return `${where} (it takes ${names.length > 0 ? names.join(', ') : 'none'})`;
}

const keyCounts = new WeakMap<z.ZodObject, number>();

/** The number of keys of an object schema's shape. */
function keyCount(schema: z.ZodObject): number {
  let count = keyCounts.get(schema);
  if (count === undefined) {
    count = Object.keys(schema.shape).length;
    keyCounts.set(schema, count);
  }
  return count;
}

/**
 * `value` itself when the schema's fast check accepts it (zod would give it back unchanged; it
 * refuses objects with a prototype of their own), zod's output otherwise, or its errors.
 */
function checkAsIs<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  return fastCheck(schema)(value) ? (value as z.output<S>) : check(schema, value);
}

/**
 * Reads a success answer: its status must be the endpoint's, and its body (JSON) must match the
 * endpoint's response schema. `json` is what the ETag cache keeps; with `keep` (the cache will keep
 * it), `data` is never that same object, so that a caller's changes to `data` do not reach the cache.
 */
export function readResponse(
  endpoint: Endpoint,
  url: string,
  answer: { status: number; text: string; headers: Headers },
  keep = false,
): { json: unknown; data: unknown } {
  // The headers are read only to report a failure: a success never reads them here.
  const { status } = answer;
  if (status !== endpoint.status)
    throw new ResponseValidationError(
      `${endpoint.method} ${url}: expected ${endpoint.status}, got ${status}`,
      status,
      [],
      answer.headers,
    );
  if (!endpoint.response) return { json: undefined, data: undefined };
  const json = parseJson(answer, url);
  return { json, data: parseResponse(endpoint, json, answer, keep) };
}

/**
 * The body parsed with the endpoint's response schema. A body the schema's fast check accepts
 * (`fastCheck`: zod would accept it and give it back unchanged) is returned as it is, unless it is
 * `shared` (a copy the ETag cache holds): then zod's output, a copy of its own, is returned, as for
 * any body the fast check is not sure of (zod's errors, zod's output).
 */
export function parseResponse(
  endpoint: Endpoint,
  json: unknown,
  answer: { status: number; headers: Headers },
  shared = false,
): unknown {
  if (!endpoint.response) return undefined;
  if (!shared && fastCheck(endpoint.response)(json)) return json;
  const result = endpoint.response.safeParse(json);
  if (result.success) return result.data;
  throw new ResponseValidationError(
    `${endpoint.method} ${endpoint.path}: the response does not match its schema (${issueSummary(result.error.issues)})`,
    answer.status,
    result.error.issues,
    answer.headers,
  );
}

/** zod's issues in one line: `id: must be a string; name: …`. */
export function issueSummary(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}

/** Parses with `schema`, or throws the `errors` map a 422 would carry. */
function check<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new RequestValidationError(toFieldErrors(result.error.issues));
  return result.data;
}

/** The validated payload, wrapped in its key, as JSON or (when it carries a file) multipart. */
function encodeBody(endpoint: Endpoint, spec: BodySpec, body: unknown): EncodedBody {
  if (body === undefined && !spec.required) return {};
  const unknown = unknownKeys(endpoint, spec, body);
  const { fields, files, errors } = splitFiles(body, spec.files);
  if (unknown || Object.keys(errors).length > 0) {
    // Every refused field at once, as a 422 lists them: the keys, the files and zod's own.
    const result = spec.schema.safeParse(fields);
    const own = result.success ? {} : toFieldErrors(result.error.issues);
    throw new RequestValidationError({ ...own, ...errors, ...unknown });
  }
  const parsed = check(spec.schema, fields);
  if (Object.keys(files).length > 0)
    return { body: toFormData(spec.key, { ...(parsed as object), ...files }) };
  return { json: spec.key === null ? parsed : { [spec.key]: parsed } };
}

/** The names a payload's keys are checked against, made once per endpoint. */
interface PayloadNames {
  /** The payload's fields: its schema's, then its file fields. */
  readonly fields: readonly string[];
  readonly taken: ReadonlySet<string>;
  /** The fields of the resource the endpoint answers with (`id`, `url`, `state`, …). */
  readonly resource: ReadonlySet<string>;
}

const payloadNames = new WeakMap<Endpoint, PayloadNames>();

function namesOf(endpoint: Endpoint, spec: BodySpec): PayloadNames {
  let names = payloadNames.get(endpoint);
  if (!names) {
    const fields = [...Object.keys(objectShape(spec.schema) ?? {}), ...spec.files];
    const resource = endpoint.response ? objectShape(endpoint.response) : undefined;
    names = { fields, taken: new Set(fields), resource: new Set(Object.keys(resource ?? {})) };
    payloadNames.set(endpoint, names);
  }
  return names;
}

/**
 * The keys of a payload the endpoint does not take, each with why; `undefined` when there is none.
 * zod would strip such a key, and with it a caller's mistake (`nmae`, `cpmAmount`, a payload
 * wrapped already): it is refused instead. A field of the endpoint's resource (`id`, `url`,
 * `created_at`, …) is let through, for zod to drop, so that a resource read and spread into an
 * update is still a payload; a key given as `undefined` is as if not given. The server ignores
 * unknown fields (decisions §1): this is the SDK's check before sending.
 */
function unknownKeys(endpoint: Endpoint, spec: BodySpec, body: unknown): FieldErrors | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  let names: PayloadNames | undefined;
  let errors: Record<string, string[]> | undefined;
  for (const key of Object.keys(body)) {
    names ??= namesOf(endpoint, spec);
    if (names.taken.has(key) || names.resource.has(key)) continue;
    if ((body as Record<string, unknown>)[key] === undefined) continue;
    errors ??= {};
    errors[key] = [notAField(endpoint, spec, names.fields, key)];
  }
  return errors;
}

/** Why `key` is refused: the wrapper, the fields it may have meant, else every field. */
function notAField(endpoint: Endpoint, spec: BodySpec, fields: readonly string[], key: string): string {
  if (key === spec.key)
    return `is the key the SDK wraps the payload in itself: pass the ${key}'s fields directly, not { ${key}: { … } }`;
  const where = `is not a field of ${endpoint.method} ${endpoint.path}.json`;
  const near = nearNames(key, fields);
  if (near.length > 0) return `${where}: did you mean ${near.slice(0, 3).join(' or ')}?`;
  return `${where} (it takes ${fields.length > 0 ? fields.join(', ') : 'none'})`;
}

function parseJson(answer: { status: number; text: string; headers: Headers }, url: string): unknown {
  const { text } = answer;
  try {
    return JSON.parse(text);
  } catch {
    throw new ResponseValidationError(
      `${url}: the response is not JSON: ${text.slice(0, 100)}`,
      answer.status,
      [],
      answer.headers,
    );
  }
}
