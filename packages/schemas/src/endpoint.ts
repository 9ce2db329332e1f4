import * as z from 'zod';
import { PageQuery } from './pagination.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Token scope an endpoint needs: `read` endpoints accept read and write tokens. */
export type Scope = 'read' | 'write';

/**
 * Who may call an endpoint, checked after the token:
 * - `user`: any authenticated user (user-scoped `/me` resources, organization list and create);
 * - `member`, `admin`, `owner`: a role in the organization named by `:organization_id` (or `:id`
 *   on organization endpoints); non-members get 404, members lacking the role 403;
 * - `admin-or-self`: an admin, or a member acting on their own membership;
 * - `test-helpers`: the sandbox key of decisions.md §4, not a user token.
 */
export type Access = 'user' | 'member' | 'admin' | 'owner' | 'admin-or-self' | 'test-helpers';

export type SuccessStatus = 200 | 201 | 204 | 303;

export interface BodySpec<
  Key extends string | null = string | null,
  Schema extends z.ZodType = z.ZodType,
  File extends string = string,
> {
  /** Wrapper key (`{"organization": {...}}`), or null for a flat body. */
  readonly key: Key;
  readonly schema: Schema;
  /** False when the body, or its wrapper, may be left out entirely (collab create). */
  readonly required: boolean;
  /** Fields that carry a file; a request with one of them is multipart. */
  readonly files: readonly File[];
}

export interface Endpoint<
  Params extends z.ZodObject = z.ZodObject,
  Query extends z.ZodObject = z.ZodObject,
  Body extends BodySpec | undefined = BodySpec | undefined,
  Response extends z.ZodType | undefined = z.ZodType | undefined,
> {
  readonly method: Method;
  /** Path template without the `.json` suffix, e.g. `/organizations/:organization_id/collabs/:id`. */
  readonly path: string;
  readonly params: Params;
  readonly query: Query;
  readonly body: Body;
  readonly status: SuccessStatus;
  /** Schema of the success body; undefined when there is none (204, 303). */
  readonly response: Response;
  readonly scope: Scope;
  readonly access: Access;
  /** Collection endpoint: `page` query and the pagination headers. */
  readonly paginated: boolean;
  /** Single-resource GET: weak ETag and `If-None-Match`. */
  readonly etag: boolean;
  /** A 404 from this endpoint has an empty body (`GET /me/address.json`). */
  readonly emptyNotFound: boolean;
  /**
   * The path parameter naming the organization the endpoint acts in (`organization_id`, or `id`
   * on `/organizations/:id`), whose membership decides `access`; null for user-scoped endpoints.
   */
  readonly organizationParam: 'organization_id' | 'id' | null;
  /**
   * Transitions only: the show endpoint the `303` points to (its path without `.json`), which the
   * SDK reads the resource again through. `undefined` on every other endpoint.
   */
  readonly show: Endpoint | undefined;
  /**
   * Accepts `Idempotency-Key` (every public `POST`; decisions.md §6): a request sent again with
   * the same key is answered from the first one's stored answer. False on test helpers.
   */
  readonly idempotent: boolean;
  /**
   * When a member with the role is still refused with `403`, in words that finish "…, or when
   * …" (`the collab is no longer a draft`); undefined when only the role decides.
   */
  readonly forbiddenWhen: string | undefined;
  /**
   * A `422` no argument of the call can avoid, in words that finish "`422` too when …"
   * (`total_budget_amount` is 0: …); undefined when there is none.
   */
  readonly unprocessableWhen: string | undefined;
  readonly summary: string;
}

/** A transition endpoint, with the show endpoint its `303 See Other` leads to. */
export interface TransitionEndpoint<
  Params extends z.ZodObject = z.ZodObject,
  Show extends Endpoint = Endpoint,
> extends Endpoint<Params, z.ZodObject, undefined, undefined> {
  readonly status: 303;
  readonly show: Show;
}

const noParams = z.object({});
const noQuery = z.object({});

/** The query of an endpoint that takes none. */
export type NoQuery = typeof noQuery;

interface Common<Params extends z.ZodObject> {
  path: string;
  params?: Params;
  access: Access;
  summary: string;
  forbiddenWhen?: string;
  unprocessableWhen?: string;
}

/** A request body wrapped in `key` (or flat when `key` is null). */
export function body<
  const Key extends string | null,
  Schema extends z.ZodType,
  const File extends string = never,
>(
  key: Key,
  schema: Schema,
  options: { required?: boolean; files?: readonly File[] } = {},
): BodySpec<Key, Schema, File> {
  return { key, schema, required: options.required ?? true, files: options.files ?? [] };
}

/** What every builder starts from: a read-only JSON GET of one resource, no body, no extras. */
const defaults = {
  method: 'GET',
  params: noParams,
  query: noQuery,
  body: undefined,
  status: 200,
  response: undefined,
  scope: 'read',
  paginated: false,
  etag: false,
  emptyNotFound: false,
  organizationParam: null,
  show: undefined,
  idempotent: false,
  forbiddenWhen: undefined,
  unprocessableWhen: undefined,
} as const;

/** The organization a path acts in: declared once here, read by the server's tenancy check. */
const organizationParamOf = (path: string): Endpoint['organizationParam'] =>
  path.includes(':organization_id')
    ? 'organization_id'
    : /^\/organizations\/:id(\/|$)/.test(path)
      ? 'id'
      : null;

/** The fields every builder takes from its caller. */
const common = <Params extends z.ZodObject>(o: Common<Params>) => ({
  path: o.path,
  organizationParam: organizationParamOf(o.path),
  params: o.params ?? (noParams as unknown as Params),
  access: o.access,
  summary: o.summary,
  forbiddenWhen: o.forbiddenWhen,
  unprocessableWhen: o.unprocessableWhen,
});

export function list<Item extends z.ZodType, Params extends z.ZodObject = typeof noParams>(
  o: Common<Params> & { item: Item },
): Endpoint<Params, typeof PageQuery, undefined, z.ZodArray<Item>> {
  return { ...defaults, ...common(o), query: PageQuery, response: z.array(o.item), paginated: true };
}

export function show<Response extends z.ZodType, Params extends z.ZodObject = typeof noParams>(
  o: Common<Params> & { response: Response; emptyNotFound?: boolean },
): Endpoint<Params, typeof noQuery, undefined, Response> {
  return {
    ...defaults,
    ...common(o),
    response: o.response,
    etag: true,
    emptyNotFound: o.emptyNotFound ?? false,
  };
}

/** Any write with a body and a JSON answer: POST create (201) or PATCH (200). */
export function write<
  Body extends BodySpec,
  Response extends z.ZodType,
  Params extends z.ZodObject = typeof noParams,
  Query extends z.ZodObject = typeof noQuery,
>(
  o: Common<Params> & {
    method: 'POST' | 'PATCH';
    status: 200 | 201;
    body: Body;
    response: Response;
    query?: Query;
  },
): Endpoint<Params, Query, Body, Response> {
  return {
    ...defaults,
    ...common(o),
    method: o.method,
    query: o.query ?? (noQuery as unknown as Query),
    body: o.body,
    status: o.status,
    response: o.response,
    scope: 'write',
    idempotent: o.method === 'POST',
  };
}

export function destroy<Params extends z.ZodObject = typeof noParams>(
  o: Common<Params>,
): Endpoint<Params, typeof noQuery, undefined, undefined> {
  return { ...defaults, ...common(o), method: 'DELETE', status: 204, scope: 'write' };
}

/**
 * A state transition: `POST …/:id/<action>`, answered `303 See Other` to the page of `show`, the
 * resource's show endpoint (the server's `Location` and the SDK's re-read both come from it).
 */
export function transition<Params extends z.ZodObject, Show extends Endpoint>(
  o: Common<Params> & { show: Show },
): TransitionEndpoint<Params, Show> {
  return {
    ...defaults,
    ...common(o),
    method: 'POST',
    status: 303,
    scope: 'write',
    show: o.show,
    idempotent: true,
  };
}

/** A call of the reference server's sandbox API (decisions.md §4), keyed by `MARKETPLACE_TEST_HELPERS_KEY`. */
export function testHelper<
  Body extends BodySpec | undefined,
  Response extends z.ZodType | undefined,
  Params extends z.ZodObject,
>(o: {
  path: string;
  params: Params;
  body: Body;
  /** `204` exactly when there is no response body. */
  status: Response extends z.ZodType ? 200 | 201 : 204;
  response: Response;
  summary: string;
}): Endpoint<Params, typeof noQuery, Body, Response> {
  return {
    ...defaults,
    ...o,
    method: 'POST',
    path: `/test_helpers${o.path}`,
    scope: 'write',
    access: 'test-helpers',
  };
}

/**
 * Each path template of the table split at its parameters, once: `/a/:id/b` is `['/a/', 'id',
 * '/b']`, the names at odd indices (a `replace` with a callback per call cost the SDK 1–2 µs).
 */
const splitTemplates = new Map<string, readonly string[]>();

/** The path with its parameters filled in and the `.json` suffix, e.g. for the SDK. */
export function buildPath(template: string, params: Readonly<Record<string, string>>): string {
  let parts = splitTemplates.get(template);
  if (parts === undefined) {
    parts = template.split(/:([a-z_]+)/);
    splitTemplates.set(template, parts);
  }
  let path = parts[0] ?? '';
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i] ?? '';
    const value = params[name];
    if (value === undefined || value === '') throw new TypeError(`Missing path parameter "${name}"`);
    path += encodeURIComponent(value) + (parts[i + 1] ?? '');
  }
  return `${path}.json`;
}

const ACCESS_TEXT: Record<Access, string> = {
  user: 'Any authenticated user.',
  member: 'Members of the organization; anyone else gets `404`.',
  admin: 'Admins of the organization; other members get `403`, anyone else `404`.',
  owner: 'The owner of the organization; other members get `403`, anyone else `404`.',
  'admin-or-self':
    'Admins of the organization, or a member acting on their own membership (`403` otherwise).',
  'test-helpers':
    'The sandbox key (`Authorization: Bearer <MARKETPLACE_TEST_HELPERS_KEY>`), not a user token.',
};

/**
 * Who may call an endpoint and what it answers, in prose, from its entry in the table. It does not
 * repeat the summary (each reader shows that as the title). `http` (the OpenAPI document's
 * operation description) says it in HTTP's terms: headers, statuses, how to send files and what
 * following a `303` gives. `call` (the MCP tools and the CLI's help, which take flat arguments and give the
 * result) says what is true of a call: no headers, redirects or multipart forms there.
 */
export function endpointDescription(e: Endpoint, audience: 'http' | 'call' = 'http'): string {
  const http = audience === 'http';
  const parts: string[] = [];
  if (e.access !== 'test-helpers')
    parts.push(
      e.scope === 'read' ? 'Read or write token.' : 'Needs a `write` token (a read token gets `401`).',
    );
  parts.push(ACCESS_TEXT[e.access]);
  if (e.forbiddenWhen) parts.push(`\`403\` too when ${e.forbiddenWhen}.`);
  if (e.paginated)
    parts.push(
      http
        ? 'Paginated: 20 items a page, chosen by `page`; the totals are in the headers.'
        : 'Paginated: 20 items a page, chosen by `page`; the result gives the totals.',
    );
  if (e.etag && http)
    parts.push('Sends a weak `ETag`; `If-None-Match` with a matching tag answers `304` with no body.');
  if (e.body && e.body.files.length > 0)
    parts.push(
      http
        ? `Send JSON, or \`multipart/form-data\` with Rails-style field names (\`${e.body.key}[name]\`) to upload ` +
            e.body.files.map((f) => `\`${e.body?.key}[${f}]\``).join(' or ') +
            '.'
        : `${e.body.files.map((f) => `\`${f}\``).join(' and ')}: a PNG, JPEG, WebP or GIF image, as a file path or a \`data:\` URL.`,
    );
  if (e.body && !e.body.required)
    parts.push(http ? 'The body may be left out.' : 'Every field may be left out.');
  if (e.status === 303)
    parts.push(
      ...(http
        ? [
            'Answers `303 See Other` with `Location` = the page of the resource (its show path without `.json`) and no body: the `303` is the success, the change is made; a transition not allowed from the current state is `422`.',
            "A client that follows the redirect (fetch and axios do, by default) reads the resource there: as JSON (`200`, the resource after the change) when it sends `Accept: application/json`, else `406`. To get the `303` itself: with fetch, send `redirect: 'manual'`; with axios, `maxRedirects: 0` (and a `validateStatus` that takes 303).",
          ]
        : ['A transition not allowed from the current state is `422`.']),
    );
  if (e.unprocessableWhen) parts.push(`\`422\` too when ${e.unprocessableWhen}.`);
  if (e.status === 204)
    parts.push(
      http ? 'Answers `204` with no body; deleting it again is `404`.' : 'Deleting it again is `404`.',
    );
  if (e.idempotent)
    parts.push(
      http
        ? 'Takes an optional `Idempotency-Key`: the same key with the same request within 24 hours answers the first answer again (with `Idempotent-Replayed: true`) and does nothing again.'
        : 'Takes an optional idempotency key: the same key with the same request within 24 hours answers the first answer again and does nothing again.',
    );
  return parts.join(' ');
}
