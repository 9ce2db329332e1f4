import { type BodySpec, buildPath, type Endpoint, toFieldErrors } from '@app/schemas';
import ky, { isHTTPError, isNetworkError, isTimeoutError } from 'ky';
import type { z } from 'zod';
import { type CachedResponse, type CacheStore, LruCache, tokenFingerprint } from './core/cache.js';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  MarketplaceError,
  makeAPIError,
  RequestValidationError,
  ResponseValidationError,
} from './core/error.js';
import { type Fetch, instrumentFetch, type Logger } from './core/logging.js';
import { Page, PagePromise, pageInfo } from './core/pagination.js';
import { retryPolicy } from './core/retry.js';
import { splitFiles, toFormData } from './core/uploads.js';
import type { Item, Params, RequestInput, Result } from './internal/types.js';
import { Campaigns } from './resources/campaigns.js';
import { Collabs } from './resources/collabs.js';
import { Me } from './resources/me/index.js';
import { Members } from './resources/members.js';
import { Organizations } from './resources/organizations.js';
import { TestHelpers } from './resources/test-helpers.js';
import { VERSION } from './version.js';

export interface ClientOptions {
  /**
   * Personal access token, sent as `Authorization: Bearer <token>`. A `read` token can only `GET`.
   * @example process.env.MARKETPLACE_TOKEN
   */
  token: string;
  /**
   * Where the API lives: an origin, optionally with a path prefix. Paths get the `.json` suffix.
   * @example 'https://marketplace.example'
   */
  baseUrl: string | URL;
  /**
   * Retries after the first attempt, on 5xx and transport errors (see README, "Retries").
   * @default 3
   * @example 0 // fail fast, e.g. in a request handler with its own deadline
   */
  maxRetries?: number;
  /**
   * Milliseconds to wait for a response, per attempt (retries get a fresh timeout).
   * @default 30_000
   * @example 5_000
   */
  timeout?: number;
  /**
   * ETag cache of the show endpoints: `true` for an in-memory LRU of 500 entries, `false` for
   * none, or a store of your own (e.g. `new LruCache(5_000)`, or one backed by Redis).
   * @default true
   * @example new LruCache(5_000)
   */
  cache?: boolean | CacheStore;
  /**
   * The `fetch` to send requests with, e.g. one with a proxy dispatcher or instrumentation.
   * @default globalThis.fetch (looked up on every request)
   * @example (input, init) => fetch(input, { ...init, dispatcher: proxyAgent })
   */
  fetch?: Fetch;
  /**
   * Your application's product token, put in front of the SDK's in the `User-Agent` (Node only;
   * browsers do not let scripts set it).
   * @default undefined
   * @example 'acme-sync/2.3 (+https://acme.example/bot)'
   */
  userAgent?: string;
  /**
   * Receives a `debug` entry for each request and response and a `warn` entry for failures and
   * 5xx, with the `Authorization` header redacted.
   * @default undefined (no logging)
   * @example console
   */
  logger?: Logger;
  /**
   * Key of the reference server's test helpers (`MARKETPLACE_TEST_HELPERS_KEY`), used by
   * `client.testHelpers`. Can also be given per call.
   * @default undefined
   * @example process.env.MARKETPLACE_TEST_HELPERS_KEY
   */
  testHelpersKey?: string;
  /**
   * Source of randomness for retry jitter, returning a number in [0, 1). Inject one to make
   * retry delays predictable in tests.
   * @default Math.random
   * @example () => 0 // retry without waiting
   */
  random?: () => number;
}

/** Options of a single call; they override the client's. */
export interface RequestOptions {
  /**
   * Cancels the call, including a pending retry; the promise rejects with the signal's reason.
   * @default undefined
   * @example AbortSignal.timeout(10_000)
   */
  signal?: AbortSignal;
  /**
   * Milliseconds to wait for a response, per attempt.
   * @default the client's `timeout` (30_000)
   * @example 5_000
   */
  timeout?: number;
  /**
   * Retries after the first attempt.
   * @default the client's `maxRetries` (3)
   * @example 0
   */
  maxRetries?: number;
  /**
   * `false` skips the ETag cache for this call: no `If-None-Match` is sent and nothing is stored.
   * @default true (when the client has a cache)
   * @example false
   */
  cache?: boolean;
}

export interface ListOptions extends Omit<RequestOptions, 'cache'> {
  /**
   * Pages fetched in parallel ahead of the one being read, once `Total-Pages` is known. Items are
   * still yielded in order.
   * @default 1
   * @example 4
   */
  concurrency?: number;
}

export interface TestHelperOptions extends Omit<RequestOptions, 'cache'> {
  /**
   * Key of the reference server's test helpers (`MARKETPLACE_TEST_HELPERS_KEY`).
   * @default the client's `testHelpersKey`
   * @example process.env.MARKETPLACE_TEST_HELPERS_KEY
   */
  testHelpersKey?: string;
}

type CallOptions = RequestOptions & TestHelperOptions;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * The creator-marketplace API client. One instance per token; it is cheap, and safe to share.
 *
 * @example
 * ```ts
 * const client = new Marketplace({ token: process.env.MARKETPLACE_TOKEN!, baseUrl: 'https://marketplace.example' });
 * for await (const org of client.organizations.list()) console.log(org.name);
 * ```
 */
export class Marketplace {
  readonly organizations: Organizations = new Organizations(this);
  readonly collabs: Collabs = new Collabs(this);
  readonly campaigns: Campaigns = new Campaigns(this);
  readonly members: Members = new Members(this);
  /** The authenticated user's own resources. */
  readonly me: Me = new Me(this);
  /**
   * The reference server's sandbox set-up API (`@app/server` with `MARKETPLACE_TEST_HELPERS_KEY`
   * set). The real service does not have it: every call there is a 404.
   */
  readonly testHelpers: TestHelpers = new TestHelpers(this);

  readonly #token: string;
  readonly #baseUrl: string;
  readonly #maxRetries: number;
  readonly #timeout: number;
  readonly #store: CacheStore | undefined;
  readonly #fetch: Fetch;
  readonly #userAgent: string | undefined;
  readonly #logger: Logger | undefined;
  readonly #testHelpersKey: string | undefined;
  readonly #random: () => number;
  #fingerprint: Promise<string> | undefined;

  constructor(options: ClientOptions) {
    if (!options.token) throw new TypeError('Marketplace: `token` is required');
    if (!options.baseUrl) throw new TypeError('Marketplace: `baseUrl` is required');
    this.#token = options.token;
    this.#baseUrl = String(new URL(String(options.baseUrl))).replace(/\/+$/, '');
    this.#maxRetries = integerAtLeast(0, 'maxRetries', options.maxRetries ?? 3);
    this.#timeout = integerAtLeast(1, 'timeout', options.timeout ?? 30_000);
    this.#store =
      typeof options.cache === 'object'
        ? options.cache
        : options.cache === false
          ? undefined
          : new LruCache();
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#userAgent = userAgent(options.userAgent);
    this.#logger = options.logger;
    this.#testHelpersKey = options.testHelpersKey;
    this.#random = options.random ?? Math.random;
  }

  /**
   * Calls any endpoint of the `@app/schemas` table; the resource methods are built on it.
   * @example client.request(endpoints.organizations.retrieve, { params: { id } })
   */
  async request<E extends Endpoint>(
    endpoint: E,
    input: RequestInput<E> = {},
    options: CallOptions = {},
  ): Promise<Result<E>> {
    return (await this.#call(endpoint, input, options)).data as Result<E>;
  }

  /** Lists a collection endpoint page by page (see {@link PagePromise}). */
  list<E extends Endpoint>(
    endpoint: E,
    input: Omit<RequestInput<E>, 'body'> = {},
    { concurrency = 1, ...options }: ListOptions = {},
  ): PagePromise<Item<E>> {
    const fetchPage = async (page: number): Promise<Page<Item<E>>> => {
      const answer = await this.#call(endpoint, { ...input, query: { ...input.query, page } }, options);
      return new Page(answer.data as Item<E>[], pageInfo(answer.headers, answer.status), fetchPage);
    };
    const { page = 1 } = (input.query ?? {}) as { page?: number };
    return new PagePromise(fetchPage, page, concurrency);
  }

  /**
   * Runs a state transition (a `POST` answered `303 See Other`, whose redirect is not followed),
   * then reads the resource again through `show`, bypassing the cached copy.
   */
  async transition<E extends Endpoint, S extends Endpoint>(
    endpoint: E,
    show: S,
    params: Params<E> & Params<S>,
    options: RequestOptions = {},
  ): Promise<Result<S>> {
    await this.#call(endpoint, { params }, options);
    await this.#forget(this.#url(buildPath(show.path, params as Record<string, string>), {}));
    return this.request(show, { params }, options);
  }

  async #call(
    endpoint: Endpoint,
    input: RequestInput<Endpoint>,
    options: CallOptions,
  ): Promise<{ data: unknown; status: number; headers: Headers }> {
    const params = check(endpoint.params, input.params ?? {}) as Record<string, string>;
    const query = check(endpoint.query, input.query ?? {});
    const body = endpoint.body ? encodeBody(endpoint.body, input.body) : {};
    const url = this.#url(buildPath(endpoint.path, params), query);
    const cacheKey =
      endpoint.etag && this.#store && options.cache !== false ? await this.#cacheKey(url) : undefined;
    const cached = cacheKey === undefined ? undefined : await this.#store?.get(cacheKey);
    try {
      const { status, headers, text } = await this.#send(endpoint, url, body, cached, options);
      const respond = (data: unknown) => ({ data, status, headers });
      if (status === 304 && cached) return respond(parse(endpoint, cached.body, status));
      if (status !== endpoint.status)
        throw new ResponseValidationError(
          `${endpoint.method} ${url}: expected ${endpoint.status}, got ${status}`,
          status,
        );
      if (!endpoint.response) return respond(undefined);
      const json = parseJson(text, status, url);
      const data = parse(endpoint, json, status);
      const etag = headers.get('etag');
      if (cacheKey !== undefined)
        await (etag ? this.#store?.set(cacheKey, { etag, body: json }) : this.#store?.delete(cacheKey));
      return respond(data);
    } catch (error) {
      // A 404, a 403 or a cached body that no longer parses: the copy must not be served again.
      if (cacheKey !== undefined) await this.#store?.delete(cacheKey);
      throw error;
    } finally {
      // Updates and deletes share their URL with the show endpoint, so this drops its cached copy.
      if (endpoint.method !== 'GET') await this.#forget(url);
    }
  }

  /** One HTTP exchange, retries included; error statuses become `APIError`s. */
  async #send(
    endpoint: Endpoint,
    url: string,
    body: { json?: unknown; body?: FormData },
    cached: CachedResponse | undefined,
    options: CallOptions,
  ): Promise<Answer> {
    const timeout = options.timeout ?? this.#timeout;
    let attempts = 0;
    try {
      const response = ky(url, {
        method: endpoint.method,
        headers: this.#headers(endpoint, cached, options),
        ...body,
        signal: options.signal,
        timeout,
        retry: retryPolicy(endpoint.method, options.maxRetries ?? this.#maxRetries, this.#random),
        // 303 (transitions) and 304 (cache) are answers to read, not errors.
        throwHttpErrors: (status) => status >= 400,
        redirect: endpoint.status === 303 ? 'manual' : 'follow',
        fetch: instrumentFetch(this.#fetch, this.#logger, () => ++attempts),
      });
      const { type, status, headers } = await response;
      // Browsers hide a manual redirect behind an opaque response.
      return { status: type === 'opaqueredirect' ? 303 : status, headers, text: await response.text() };
    } catch (error) {
      if (isHTTPError(error)) {
        const { status, headers } = error.response;
        // An earlier attempt deleted it and its answer was lost (spec, "Retry guidance").
        if (endpoint.method === 'DELETE' && status === 404 && attempts > 1)
          return { status: endpoint.status, headers, text: '' };
        throw makeAPIError(status, headers, error.data);
      }
      if (isTimeoutError(error))
        throw new APIConnectionTimeoutError(`No response within ${timeout} ms: ${endpoint.method} ${url}`, {
          cause: error,
        });
      if (isNetworkError(error))
        throw new APIConnectionError(`Connection failed: ${endpoint.method} ${url}`, { cause: error.cause });
      throw error;
    }
  }

  #headers(endpoint: Endpoint, cached: CachedResponse | undefined, options: CallOptions): Headers {
    const headers = new Headers({
      Accept: 'application/json',
      Authorization: `Bearer ${this.#credential(endpoint, options)}`,
    });
    if (this.#userAgent) headers.set('User-Agent', this.#userAgent);
    if (cached) headers.set('If-None-Match', cached.etag);
    return headers;
  }

  #credential(endpoint: Endpoint, options: CallOptions): string {
    if (endpoint.access !== 'test-helpers') return this.#token;
    const key = options.testHelpersKey ?? this.#testHelpersKey;
    if (!key) throw new MarketplaceError('The test helpers need `testHelpersKey` (client or call option)');
    return key;
  }

  #url(path: string, query: Readonly<Record<string, unknown>>): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) search.set(name, String(value));
    const qs = search.size > 0 ? `?${search}` : '';
    return `${this.#baseUrl}${path}${qs}`;
  }

  async #cacheKey(url: string): Promise<string> {
    this.#fingerprint ??= tokenFingerprint(this.#token);
    return `${await this.#fingerprint} ${url}`;
  }

  async #forget(url: string): Promise<void> {
    if (this.#store) await this.#store.delete(await this.#cacheKey(url));
  }
}

/** Parses with `schema`, or throws the `errors` map a 422 would carry. */
function check<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new RequestValidationError(toFieldErrors(result.error.issues));
  return result.data;
}

/** The validated payload, wrapped in its key, as JSON or (when it carries a file) multipart. */
function encodeBody(spec: BodySpec, body: unknown): { json?: unknown; body?: FormData } {
  if (body === undefined && !spec.required) return {};
  const { fields, files, errors } = splitFiles(body, spec.files);
  if (Object.keys(errors).length > 0) throw new RequestValidationError(errors);
  const parsed = check(spec.schema, fields);
  if (Object.keys(files).length > 0)
    return { body: toFormData(spec.key, { ...(parsed as object), ...files }) };
  return { json: spec.key === null ? parsed : { [spec.key]: parsed } };
}

function parseJson(text: string, status: number, url: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ResponseValidationError(`${url}: the response is not JSON: ${text.slice(0, 100)}`, status);
  }
}

function parse(endpoint: Endpoint, json: unknown, status: number): unknown {
  if (!endpoint.response) return undefined;
  const result = endpoint.response.safeParse(json);
  if (result.success) return result.data;
  const detail = result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  throw new ResponseValidationError(
    `${endpoint.method} ${endpoint.path}: the response does not match its schema (${detail})`,
    status,
    result.error.issues,
  );
}

function integerAtLeast(min: number, name: string, value: number): number {
  if (!Number.isInteger(value) || value < min)
    throw new RangeError(`Marketplace: \`${name}\` must be an integer of at least ${min}`);
  return value;
}

/** Browsers forbid setting `User-Agent`, so it is only sent from Node. */
function userAgent(prefix: string | undefined): string | undefined {
  const node = globalThis.process?.versions?.node;
  if (node === undefined) return undefined;
  const sdk = `marketplace-sdk/${VERSION} node/${node} (${process.platform}; ${process.arch})`;
  return prefix ? `${prefix} ${sdk}` : sdk;
}
