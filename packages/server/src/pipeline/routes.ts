import {
  type BodySpec,
  buildPath,
  type Endpoint,
  ErrorBody,
  type FieldErrors,
  fastCheck,
  toFieldErrors,
  ValidationErrorBody,
} from '@app/schemas';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type * as z from 'zod';
import type { Config } from '../config.js';
import type { Em } from '../db/database.js';
import type { ReadResult } from '../db/reads.js';
import { bodySchemaOf } from '../http/body-schema.js';
import {
  HttpError,
  notFound,
  throwIfInvalid,
  unavailable,
  unprocessable,
  unsupportedMediaType,
} from '../http/errors.js';
import { operationIdOf } from '../http/openapi.js';
import { AnsweredFromKey, type Context, type Route, takesKeyItself } from '../http/route.js';
import { idempotencyHooks, takeIdempotencyKey } from '../modules/idempotency/idempotency.service.js';
import type { UploadStore } from '../modules/uploads/uploads.js';
import { authorize, type CallerRead } from './auth.js';
import type { Callers } from './callers.js';
import { conditionalGet } from './conditional-get.js';
import { isJsonRequest, refuseNotJson } from './json-selection.js';
import { formMaxBytes, isMultipartForm, readMultipartForm } from './multipart.js';
import { type CachedPage, PageCache } from './page-cache.js';
import { pageWindow, setPageHeaders } from './pagination.js';
import { requireTestHelpersKey } from './test-helpers-key.js';

/** The callback of a callback-style `onSend` hook. */
type OnSendDone = (error: Error | null, payload?: unknown) => void;

/**
 * The context a handler is given, its `em` forked on first use. A class, so that the getter is
 * one function on the prototype: an object literal with its own `get em()` made a new closure and
 * a new hidden class for every request, each linked from the transitions of an old one, which
 * kept the request reachable until the next full collection. Every young collection then moved
 * the requests answered since the last one (~5 MB under load) into the old generation, and took
 * 8–10 ms (docs/performance.md, "p99 and garbage collection").
 */
class HandlerContext<E extends Endpoint, C> implements Context<E, C> {
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  readonly config: Config;
  readonly caller: C;
  readonly params: Context<E, C>['params'];
  readonly query: Context<E, C>['query'];
  readonly body: Context<E, C>['body'];
  readonly files: Context<E, C>['files'];
  readonly uploads: UploadStore;
  readonly page: Context<E, C>['page'];
  readonly read: ReadResult;

  constructor(fields: Omit<Context<E, C>, 'em' | 'takeIdempotencyKey'>) {
    this.request = fields.request;
    this.reply = fields.reply;
    this.config = fields.config;
    this.caller = fields.caller;
    this.params = fields.params;
    this.query = fields.query;
    this.body = fields.body;
    this.files = fields.files;
    this.uploads = fields.uploads;
    this.page = fields.page;
    this.read = fields.read;
  }

  get em(): Em {
    return this.request.em;
  }

  async takeIdempotencyKey(): Promise<void> {
    if (await takeIdempotencyKey(this.request, this.reply)) throw new AnsweredFromKey();
  }
}

/*
 * PostgreSQL text and jsonb cannot hold a NUL character: a request string with one would fail in
 * the database (a 500). An id with one names nothing (404); a payload with one is refused (422).
 */
const hasNul = (s: string) => s.includes('\u0000');

/*
 * Nor can they hold a lone surrogate (JSON's "\ud800" escape; text that is not Unicode): text
 * would store U+FFFD in its place while the answer echoed the surrogate, jsonb refuses it (a 500).
 * A payload with one is refused (422). An id cannot carry one: a path is decoded from UTF-8.
 */
const LONE_SURROGATE = /\p{Surrogate}/u; // in `u` mode a pair is one code point: only a lone half matches

const TEXT_PROBLEMS = [
  { has: hasNul, message: 'must not contain a NUL character' },
  {
    has: (s: string) => LONE_SURROGATE.test(s),
    message: 'must be valid Unicode text (it holds a lone surrogate)',
  },
] as const;

const textProblemOf = (s: string) => TEXT_PROBLEMS.find((problem) => problem.has(s));

/** The first string (or key) of a parsed payload that the database cannot store, and why. */
function unstorableText(value: unknown, path: string[] = []): { path: string[]; message: string } | null {
  if (typeof value === 'string') {
    const problem = textProblemOf(value);
    return problem ? { path, message: problem.message } : null;
  }
  if (value === null || typeof value !== 'object') return null;
  for (const [key, item] of Object.entries(value)) {
    const problem = textProblemOf(key);
    const found = problem
      ? { path: [...path, key], message: problem.message }
      : unstorableText(item, [...path, key]);
    if (found) return found;
  }
  return null;
}

/**
 * The path parameters and query of a request, checked once, in `onRequest` (before the caller is
 * looked up: the route's read needs them). Every later step reads this outcome: the tenancy
 * lookup, the route's read, the `422` at validation's place, the handler's `404`.
 */
export interface RouteInput {
  /**
   * A parameter holds a NUL character, which PostgreSQL text cannot hold: the request names
   * nothing (`404` after the token check; tenancy finds no organization of that id).
   */
  namesNothing: boolean;
  /** The organization the endpoint acts in (by the parameter the table declares), `''` for none. */
  organizationId: string | undefined;
  /** The validated parameters and query, or null when either is invalid. */
  valid: { params: Record<string, unknown>; query: Record<string, unknown> } | null;
  /** The `errors` map of the invalid parameters (then query), answered `422` at validation. */
  errors: FieldErrors | null;
  /** What the route's declared read selected with the caller (empty when it declares none). */
  read: ReadResult;
  /**
   * A page of a versioned list: its key in the page cache and the page kept there when the request
   * arrived, whose version the read was told (pipeline/page-cache.ts).
   */
  page?: { key: string; cached: CachedPage | undefined };
}

const issuesOf = (error: z.ZodError) =>
  error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message }));

/** The read of a route that declares none. */
const NOTHING_READ: ReadResult = Object.freeze({ entities: [], total: null });

/**
 * `schema.safeParse(value)`, but a value the schema's fast check accepts (zod would return it
 * unchanged: `fastCheck` of @app/schemas, the SDK's check of answers) is taken as it is, without
 * zod's run (an organization id: about 1 µs of the 2.5 zod takes).
 */
function parsed(schema: z.ZodType, value: unknown): z.ZodSafeParseResult<unknown> {
  return fastCheck(schema)(value) ? { success: true, data: value } : schema.safeParse(value);
}

/** Checks the request's parameters and query against the endpoint's schemas, once. */
function inputOf(endpoint: Endpoint, params: Record<string, string>, query: unknown): RouteInput {
  let namesNothing = false;
  let organizationId: string | undefined;
  for (const [name, value] of Object.entries(params)) {
    const nul = hasNul(value);
    namesNothing ||= nul;
    // No organization has such an id: the caller is a member of none (404 after the token
    // check). Another parameter naming nothing leaves tenancy and the role to be checked first.
    if (name === endpoint.organizationParam) organizationId = nul ? '' : value;
  }
  const refused = (error: z.ZodError): RouteInput => ({
    namesNothing,
    organizationId,
    valid: null,
    errors: toFieldErrors(issuesOf(error)),
    read: NOTHING_READ,
  });
  // A plain copy: Fastify's parameters have no prototype, which the fast check leaves to zod.
  const validParams = parsed(endpoint.params, { ...params });
  if (!validParams.success) return refused(validParams.error);
  const validQuery = parsed(endpoint.query, query ?? {});
  if (!validQuery.success) return refused(validQuery.error);
  return {
    namesNothing,
    organizationId,
    valid: {
      params: validParams.data as Record<string, unknown>,
      query: validQuery.data as Record<string, unknown>,
    },
    errors: null,
    read: NOTHING_READ,
  };
}

/**
 * The route's read for this request, or none when its parameters or query are not valid or name
 * nothing (the request is then refused after authentication, without reading anything).
 */
function readOf(route: Route, input: RouteInput, pages: PageCache): CallerRead | undefined {
  if (!route.read || input.namesNothing || !input.valid) return undefined;
  const page = (input.valid.query as { page?: number }).page ?? 1;
  const read: CallerRead = {
    name: route.name,
    declaration: route.read,
    params: input.valid.params,
    page: pageWindow(page),
  };
  if ('page' in route.read && pages.enabled && input.organizationId) {
    const key = PageCache.keyOf(route.name, input.organizationId, page);
    const cached = pages.get(key);
    input.page = { key, cached };
    read.known = cached?.version ?? null;
  }
  return read;
}

/** A page's JSON and total: the kept JSON when its list is still at its version, else null. */
function cachedPageOf(input: RouteInput | undefined): { body: Buffer; total: number } | null {
  const cached = input?.page?.cached;
  if (!cached || input.read.version !== cached.version || input.read.total === null) return null;
  return { body: cached.body, total: input.read.total };
}

const JSON_TYPE = 'application/json; charset=utf-8';

function responseSchemasOf(endpoint: Endpoint): Record<number, z.ZodType> {
  const schemas: Record<number, z.ZodType> = {
    403: ErrorBody.describe('The caller is a member whose role does not allow this'),
    404: ErrorBody.describe('Not found, or not visible to the caller'),
    503: ErrorBody.describe('Temporarily unavailable; retry after `Retry-After` seconds'),
  };
  if (endpoint.response) schemas[endpoint.status] = endpoint.response;
  if (endpoint.method !== 'GET' || endpoint.paginated) schemas[422] = ValidationErrorBody;
  return schemas;
}

/**
 * `Cache-Control` of an API answer: never stored by a shared cache. Answers that carry a token
 * or the caller's personal data (`/me/*`, the test helpers) are not stored at all; the others
 * are `private`, so a browser may keep a show and revalidate it with its `ETag`.
 */
function cacheControl(endpoint: Endpoint) {
  const value =
    endpoint.access === 'test-helpers' || endpoint.path.startsWith('/me/') ? 'no-store' : 'private';
  const etag = endpoint.etag === true;
  return (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: OnSendDone) => {
    reply.header('cache-control', value);
    done(null, etag ? conditionalGet(request, reply, payload) : payload);
  };
}

/** The body's `preValidation`: a multipart form is read (files and fields), or refused. */
function bodyHookOf(body: BodySpec, config: Config) {
  if (body.files.length > 0)
    return async (request: FastifyRequest) => {
      if (!request.isMultipart()) return;
      const form = await readMultipartForm(request, body, config.maxUploadBytes);
      request.body = form.body;
      request.uploads = form.files;
      request.uploadErrors = form.errors;
    };
  // A form here is marked and left unread (pipeline/multipart.ts `withoutMultipart`).
  return async (request: FastifyRequest) => {
    if (isMultipartForm(request)) throw unsupportedMediaType('this endpoint takes no files');
  };
}

/**
 * Where Fastify's validation of parameters and query stood: the `422` of the input checked in
 * `onRequest` ({@link inputOf}), or the validated values for the handler.
 */
function applyInput(request: FastifyRequest): void {
  const input = request.routeInput;
  if (input?.errors) throw unprocessable(input.errors);
  if (input?.valid) {
    request.params = input.valid.params;
    request.query = input.valid.query;
  }
}

/** {@link applyInput} as a callback hook: no promise and no microtask per request. */
function checkedInput(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) {
  try {
    applyInput(request);
  } catch (error) {
    return done(error as Error);
  }
  done();
}

export interface RouteOptions {
  config: Config;
  /** Decides each request for `MARKETPLACE_CHAOS_503_RATE`; injectable for tests. */
  random: () => number;
  /** The one upload store of the app. */
  uploads: UploadStore;
  /** The pages of versioned lists answered, kept until their list changes. */
  pages: PageCache;
  /** Whose tokens authenticated, for the per-client share of the cap (pipeline/callers.ts). */
  callers: Callers;
}

/** Whether the endpoint takes files (a multipart form): its route is registered with the form reader. */
export const takesFiles = (route: Route): boolean =>
  ((route.endpoint.body as BodySpec | undefined)?.files.length ?? 0) > 0;

/**
 * The end of a handler whose request was answered before it (`503` at the request's deadline,
 * plugins/request-lifecycle.ts): what it did is not sent, and a write it had not made is not
 * made (the creates check the request's end before they write: members.service.ts,
 * `checkCallerStillAllowed`). Logged at `info`, once: the client had its answer, so neither the
 * error the late work ended with (Fastify would log it at `error`) nor a second send (`warn`).
 */
function answeredAlready(request: FastifyRequest, reply: FastifyReply, error?: unknown): FastifyReply {
  request.log.info(
    {
      url: request.url,
      statusCode: reply.statusCode,
      ...(error !== undefined && { lateError: String(error) }),
    },
    'handler ended after its request was answered already',
  );
  return reply;
}

/**
 * A path parameter left empty (`…/collabs/.json`, or `…/collabs/` read as a show): the URL names
 * no resource, as a path no route has (`404` before anything else; docs/decisions.md).
 */
function namesNoRoute(params: Record<string, string>): boolean {
  for (const name in params) if (params[name] === '') return true;
  return false;
}

/** Registers one endpoint of the table: hooks in the order of decisions.md, then the handler. */
export function registerRoute(app: FastifyInstance, route: Route, options: RouteOptions): void {
  const { endpoint, handler } = route;
  const { config } = options;
  const isTestHelper = endpoint.access === 'test-helpers';
  const body = endpoint.body as BodySpec | undefined;
  const isGet = endpoint.method === 'GET' && !body;
  const lateKey = takesKeyItself(handler);
  const idempotency = endpoint.idempotent
    ? idempotencyHooks(config.idempotencyKeysPerUser, lateKey)
    : undefined;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.route({
    method: endpoint.method,
    url: endpoint.path,
    schema: {
      operationId: operationIdOf(route.name),
      summary: endpoint.summary,
      tags: [route.name.split('.')[0] as string],
      // Parameters and query are checked once, in onRequest (`inputOf`), not again by Fastify.
      ...(body && { body: bodySchemaOf(body) }),
      response: responseSchemasOf(endpoint),
      ...(!isTestHelper && { security: [{ bearerAuth: [] }] }),
      ...(isTestHelper && { security: [{ testHelpersKey: [] }] }),
    },
    config: {
      bodyKey: body?.key ?? null,
      emptyNotFound: endpoint.emptyNotFound,
      needsDatabase: true,
      ...(body &&
        body.files.length > 0 && { maxBodyBytes: formMaxBytes(body.files.length, config.maxUploadBytes) }),
    },
    // One hook, in the order of decisions.md: chaos 503, JSON only (406), then the caller. The
    // test helpers draw no chaos: they set up a test, whose client under test is the API's.
    onRequest: async (request, reply) => {
      const params = request.params as Record<string, string>;
      if (namesNoRoute(params)) throw notFound();
      if (!isTestHelper && options.config.chaos503Rate > 0 && options.random() < options.config.chaos503Rate)
        throw unavailable('chaos');
      if (!isJsonRequest(request)) return refuseNotJson(reply);
      const input = inputOf(endpoint, params, request.query);
      request.routeInput = input;
      if (isTestHelper) return requireTestHelpersKey(request, config.testHelpersKey);
      const read = await authorize(
        request,
        {
          scope: endpoint.scope,
          access: endpoint.access as Exclude<typeof endpoint.access, 'test-helpers'>,
          organizationId: input.organizationId,
        },
        options.callers,
        readOf(route, input, options.pages),
      );
      if (read) input.read = read;
    },
    // The payload's own hooks (a multipart form read, or refused), then the parameters' `422`:
    // Fastify validated parameters before the body, and the body after these hooks. A GET has no
    // body, and nothing runs between this hook and its handler (no validation, no `preHandler`:
    // plugins/request-lifecycle.ts): its handler applies its input first, one hook less.
    ...(!isGet && { preValidation: [...(body ? [bodyHookOf(body, config)] : []), checkedInput] }),
    // Idempotency-Key (decisions.md §6): checked before the body is read, taken after validation.
    ...(idempotency && { preParsing: idempotency.preParsing, preHandler: idempotency.preHandler }),
    onSend: idempotency ? [cacheControl(endpoint), idempotency.onSend] : cacheControl(endpoint),
    handler: async (request, reply) => {
      if (isGet) applyInput(request);
      if (request.routeInput?.namesNothing) throw notFound();
      // The payload passed validation; file fields refused while reading the form still fail it.
      if (request.uploadErrors) throwIfInvalid(request.uploadErrors);
      const unstorable = unstorableText(request.body);
      if (unstorable) throw unprocessable(toFieldErrors([unstorable], body?.key ?? undefined));
      const raw = request.body as Record<string, unknown> | undefined;
      const input = request.routeInput;
      const pageNumber = (request.query as { page?: number }).page ?? 1;
      const kept = endpoint.paginated ? cachedPageOf(input) : null;
      if (kept !== null) {
        setPageHeaders(reply, pageNumber, kept.total);
        return reply.code(200).type(JSON_TYPE).send(kept.body);
      }
      const context = new HandlerContext({
        request,
        reply,
        config,
        caller: isTestHelper ? null : request.caller,
        params: request.params as never,
        query: request.query as never,
        body: (body && body.key !== null ? raw?.[body.key] : raw) as never,
        files: request.uploads ?? {},
        uploads: options.uploads,
        page: pageWindow(pageNumber),
        read: input?.read ?? NOTHING_READ,
      });
      let result: unknown;
      try {
        result = await handler(context);
      } catch (error) {
        // The key's stored answer was sent instead (a handler that takes its key itself).
        if (lateKey && error instanceof AnsweredFromKey) return reply;
        if (reply.sent) return answeredAlready(request, reply, error);
        throw error;
      }
      if (reply.sent) return answeredAlready(request, reply);
      if (endpoint.show) {
        const page = buildPath(endpoint.show.path, request.params as Record<string, string>);
        return reply
          .code(303)
          .header('location', `${config.baseUrl}${page.slice(0, -'.json'.length)}`)
          .send();
      }
      if (endpoint.status === 204) return reply.code(204).send();
      if (endpoint.paginated) {
        const { items, total } = result as unknown as { items: unknown[]; total: number };
        setPageHeaders(reply, pageNumber, total);
        const json = Buffer.from(JSON.stringify(items));
        const version = input?.read.version;
        if (input?.page && version) options.pages.set(input.page.key, { version, body: json });
        return reply.code(200).type(JSON_TYPE).send(json);
      }
      if (result === undefined) throw new HttpError(500, { error: 'No response' });
      return reply.code(endpoint.status).send(result);
    },
  });
}
