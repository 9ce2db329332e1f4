import { buildPath, type Endpoint, type TransitionEndpoint } from '@app/schemas';
import ky, { isHTTPError, isNetworkError, isTimeoutError, type Options, type RetryOptions } from 'ky';
import { APIPromise } from './core/api-promise.js';
import { type CachedResponse, LruCache } from './core/cache.js';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  ClientOptionError,
  MarketplaceError,
  ResponseValidationError,
} from './core/error.js';
import { ETagCache, type StoreBound } from './core/etag-cache.js';
import { idempotencyKeyFor } from './core/idempotency.js';
import { type Fetch, instrumentFetch, type Logger, stderrLogger } from './core/logging.js';
import { madeResponse } from './core/made-response.js';
import { makeAPIError } from './core/make-api-error.js';
import { Page, PagePromise, pageInfo, pageResponse } from './core/pagination.js';
import { retryPolicy, systemReason } from './core/retry.js';
import type { Item, Params, RequestInput, Result } from './core/types.js';
import {
  type EncodedBody,
  issueSummary,
  parseResponse,
  readResponse,
  validateRequest,
} from './core/validation.js';
import { readEnv } from './internal/env.js';
import { HEADER_VALUE, HTTP_WHITESPACE_AROUND } from './internal/header-value.js';
import { checkedInteger } from './internal/integer-option.js';
import type { CallOptions, ClientOptions, ListOptions, RequestOptions } from './internal/options.js';
import { Campaigns } from './resources/campaigns.js';
import { Collabs } from './resources/collabs.js';
import { Me } from './resources/me/index.js';
import { Members } from './resources/members.js';
import { Organizations } from './resources/organizations.js';
import { TestHelpers } from './resources/test-helpers.js';
import { VERSION } from './version.js';

export type { ClientOptions, ListOptions, RequestOptions, TestHelperOptions } from './internal/options.js';

/**
 * One exchange, read: its status, headers and body text. `response` (a readable copy for
 * `withResponse()`) is made only when asked for. Classes, not object literals with a getter: V8
 * builds those on a slow path, once per call.
 */
class Answer {
  #copy: Response | undefined;

  constructor(
    readonly received: Response,
    readonly status: number,
    readonly text: string,
  ) {}

  get headers(): Headers {
    return this.received.headers;
  }

  get response(): Response {
    this.#copy ??= readableCopy(this.received, this.status, this.text);
    return this.#copy;
  }
}

/** The parsed result of a call with its answer (the response copy still made only on use). */
class Outcome {
  constructor(
    readonly data: unknown,
    readonly answer: Answer,
  ) {}

  get response(): Response {
    return this.answer.response;
  }
}

/**
 * The creator-marketplace API client. One instance per token; it is cheap, and safe to share.
 *
 * @example
 * ```ts
 * const client = new Marketplace(); // MARKETPLACE_TOKEN and MARKETPLACE_BASE_URL
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

  /** The options this client was made with, its defaults resolved (for `withOptions`). */
  readonly #options: ClientOptions;
  readonly #token: string;
  readonly #baseUrl: string;
  readonly #maxRetries: number;
  readonly #timeout: number;
  readonly #cache: ETagCache | undefined;
  readonly #fetch: Fetch;
  readonly #userAgent: string | undefined;
  readonly #logger: Logger | undefined;
  readonly #random: () => number;
  /** `defaultHeaders`, their names in lowercase. */
  readonly #defaultHeaders: ReadonlyMap<string, string>;
  /** ky's retry options per method and limit, made once: ky reads them, it does not keep or change them. */
  readonly #retries = new Map<string, RetryOptions>();

  /** Without `token` or `baseUrl`, reads `MARKETPLACE_TOKEN` and `MARKETPLACE_BASE_URL`. */
  constructor(options: ClientOptions = {}) {
    const token = options.token ?? readEnv('MARKETPLACE_TOKEN');
    const baseUrl = options.baseUrl ?? readEnv('MARKETPLACE_BASE_URL');
    if (!token || !baseUrl) throw new TypeError(missing(!token, !baseUrl));
    const store =
      typeof options.cache === 'object'
        ? options.cache
        : options.cache === false
          ? undefined
          : new LruCache();
    const logger = options.logger ?? stderrLogger(readEnv('MARKETPLACE_LOG'));
    // A client made by `withOptions` shares this one's cache store (keys carry the token's fingerprint).
    this.#options = { ...options, token, baseUrl, cache: store ?? false, logger };
    this.#token = checkedToken(token);
    this.#baseUrl = checkedBaseUrl(String(baseUrl));
    this.#maxRetries = integerAtLeast(0, 'maxRetries', options.maxRetries ?? 3);
    this.#timeout = integerAtLeast(1, 'timeout', options.timeout ?? 30_000, MAX_TIMEOUT_MS);
    // The logger hears of a failing store, whose failures are otherwise ignored (see ETagCache).
    this.#cache = store && new ETagCache(store, token, logger);
    // Called without a `this` (ky would call it as a method of its options, which a browser's
    // `fetch` refuses), through one wrapper made here rather than one per call.
    const fetch = options.fetch;
    this.#fetch = fetch
      ? (input, init) => fetch(input, init)
      : (input, init) => globalThis.fetch(input, init);
    this.#userAgent = userAgent(checkedUserAgent(options.userAgent));
    this.#logger = logger;
    this.#random = options.random ?? Math.random;
    this.#defaultHeaders = customHeaders(new Map(), options.defaultHeaders, 'defaultHeaders');
  }

  /**
   * A new client with some options changed (one given as `undefined` is not); the rest, and the
   * ETag cache, are this one's.
   * @example client.withOptions({ maxRetries: 0, timeout: 5_000 })
   */
  withOptions(options: ClientOptions): Marketplace {
    // An option given as `undefined` is not changed (`{ timeout: process.env.X && Number(…) }`).
    const changed = Object.entries(options).filter(([, value]) => value !== undefined);
    return new Marketplace({ ...this.#options, ...Object.fromEntries(changed) });
  }

  /**
   * Calls any endpoint of the `@app/schemas` table; the resource methods are built on it.
   * @example client.request(endpoints.organizations.retrieve, { params: { id } })
   */
  request<E extends Endpoint>(
    endpoint: E,
    input: RequestInput<E> = {},
    options: CallOptions = {},
  ): APIPromise<Result<E>> {
    return new APIPromise(
      this.#call(endpoint, input, options) as Promise<{ data: Result<E>; response: Response }>,
    );
  }

  /** Lists a collection endpoint page by page (see {@link PagePromise}). */
  list<E extends Endpoint>(
    endpoint: E,
    input: Omit<RequestInput<E>, 'body'> = {},
    { concurrency = 1, ...options }: ListOptions = {},
  ): PagePromise<Item<E>> {
    // `signal`: the page iteration's, for the pages it fetches ahead (aborted once not wanted).
    const fetchPage = async (page: number, signal?: AbortSignal): Promise<Page<Item<E>>> => {
      const { data, answer } = await this.#call(
        endpoint,
        { ...input, query: { ...input.query, page } },
        signal === undefined
          ? options
          : { ...options, signal: options.signal ? AbortSignal.any([options.signal, signal]) : signal },
      );
      const info = pageInfo(answer.headers, answer.status);
      return pageResponse(new Page(data as Item<E>[], info, fetchPage, answer.headers), answer);
    };
    const { page = 1 } = (input.query ?? {}) as { page?: number };
    return new PagePromise(fetchPage, page, concurrency);
  }

  /**
   * Runs a state transition (a `POST` answered `303 See Other`, whose redirect is not followed),
   * then reads the resource again through the show endpoint the table names (its cached copy is
   * dropped first).
   */
  transition<E extends TransitionEndpoint>(
    endpoint: E,
    params: Params<E>,
    options: RequestOptions = {},
  ): APIPromise<Result<E['show']>> {
    const reread = async () => {
      await this.#call(endpoint, { params }, options);
      return this.#call(endpoint.show, { params }, options);
    };
    return new APIPromise(reread() as Promise<{ data: Result<E['show']>; response: Response }>);
  }

  /** Build the URL, send, read: validation and the ETag cache on either side of the exchange. */
  async #call(endpoint: Endpoint, input: RequestInput<Endpoint>, options: CallOptions): Promise<Outcome> {
    const { params, query, body } = validateRequest(endpoint, input);
    const url = this.#url(buildPath(endpoint.path, params), query);
    const timeout =
      options.timeout === undefined
        ? this.#timeout
        : integerAtLeast(1, 'timeout', options.timeout, MAX_TIMEOUT_MS);
    const cache = endpoint.etag && options.cache !== false ? this.#cache : undefined;
    // The store's calls never fail the call, and are given up after `timeout` (see ETagCache). Only
    // a show (read) or a write asks the store anything: a page of a list goes without.
    const bound =
      this.#cache && (cache || endpoint.method !== 'GET')
        ? { method: endpoint.method, timeout, signal: options.signal }
        : undefined;
    const slot = cache && bound && (await cache.lookup(url, bound));
    // A store that had not answered when the caller aborted: nothing is sent.
    options.signal?.throwIfAborted();
    try {
      let answer = await this.#send(endpoint, url, body, slot?.cached, timeout, options);
      if (answer.status === 304 && slot?.cached && bound) {
        try {
          return new Outcome(parseResponse(endpoint, slot.cached.body, answer, true), answer);
        } catch (error) {
          if (!(error instanceof ResponseValidationError)) throw error;
          // The store's copy is not this SDK's to serve, and the store never changes a call's
          // outcome: the read goes again without it, and its answer replaces the copy.
          this.#cache?.refused(slot, bound, issueSummary(error.issues));
          answer = await this.#send(endpoint, url, body, undefined, timeout, options);
        }
      }
      const { json, data } = readResponse(endpoint, url, answer, slot !== undefined);
      if (slot && bound) await this.#cache?.save(slot, bound, answer.headers.get('etag'), json);
      return new Outcome(data, answer);
    } catch (error) {
      if (slot && bound) await this.#cache?.drop(slot, bound);
      throw error;
    } finally {
      // Updates, deletes and transitions change what the show endpoint would answer. The cache's
      // calls never throw, so this cannot replace the call's result or error.
      if (endpoint.method !== 'GET' && bound) await this.#forgetAfter(endpoint, params, url, bound);
    }
  }

  /** Drops the cached copy a write made stale: its own URL (update, delete) or its show's (transition). */
  async #forgetAfter(
    endpoint: Endpoint,
    params: Record<string, string>,
    url: string,
    bound: StoreBound,
  ): Promise<void> {
    const shown = endpoint.show ? this.#url(buildPath(endpoint.show.path, params), {}) : url;
    await this.#cache?.forget(shown, bound);
  }

  /** One HTTP exchange, retries included; error statuses become `APIError`s. */
  async #send(
    endpoint: Endpoint,
    url: string,
    body: EncodedBody,
    cached: CachedResponse | undefined,
    timeout: number,
    options: CallOptions,
  ): Promise<Answer> {
    const maxRetries =
      options.maxRetries === undefined
        ? this.#maxRetries
        : integerAtLeast(0, 'maxRetries', options.maxRetries);
    let attempts = 0;
    try {
      // ky merges its options key by key on every call: only the keys this call needs are given.
      const headers = this.#headers(endpoint, cached, options);
      // One key for every attempt of this call: a retry is then answered, not run again (§6).
      if (endpoint.idempotent) headers['idempotency-key'] = idempotencyKeyFor(options.idempotencyKey);
      const init: Options = {
        headers,
        timeout,
        retry: this.#retry(endpoint.method, maxRetries, endpoint.idempotent),
        throwHttpErrors,
        // The attempts are counted for the logger, a DELETE's 404 and a timeout's message (below).
        fetch: instrumentFetch(this.#fetch, this.#logger, () => ++attempts),
      };
      if ('json' in body) init.json = body.json;
      if ('body' in body) init.body = body.body;
      if (endpoint.method !== 'GET') init.method = endpoint.method;
      if (options.signal) init.signal = options.signal;
      // A transition's 303 is its answer: the redirect is not followed.
      if (endpoint.status === 303) init.redirect = 'manual';
      const pending = ky(url, init);
      const received = await pending;
      // Browsers hide a manual redirect behind an opaque response.
      const status = received.type === 'opaqueredirect' ? 303 : received.status;
      // ky's `.text()` gives the body the same `timeout`, and on expiry aborts the request's own
      // signal, which closes a stalled connection (a `cancel()` of the locked body could not).
      const text = await pending.text();
      return new Answer(received, status, text);
    } catch (error) {
      // The caller's signal (`AbortSignal.timeout()` among them) rejects with its own reason.
      if (options.signal?.aborted) throw options.signal.reason;
      if (isHTTPError(error)) {
        const { status, headers } = error.response;
        // An earlier attempt deleted it and its answer was lost (spec, "Retry guidance").
        if (endpoint.method === 'DELETE' && status === 404 && attempts > 1)
          return new Answer(error.response, endpoint.status, '');
        throw makeAPIError(status, headers, error.data, {
          method: endpoint.method,
          url,
          route: `${endpoint.path}.json`,
        });
      }
      if (isTimeoutError(error)) throw timedOut(endpoint, url, timeout, attempts, error);
      if (isNetworkError(error)) {
        const reason = systemReason(error);
        const why = reason.message === undefined ? unexplained(url) : ` (${reason.message})`;
        const tried = attempts > 1 ? ` (${attempts} attempts)` : '';
        throw new APIConnectionError(`Connection failed${tried}: ${endpoint.method} ${url}${why}`, {
          cause: error.cause,
          code: reason.code,
        });
      }
      throw error;
    }
  }

  /**
   * The request's headers as a plain object in fast mode: ky spreads it into its defaults (a
   * prototype-less object, a dictionary to V8, made that ten times slower).
   */
  #headers(
    endpoint: Endpoint,
    cached: CachedResponse | undefined,
    options: CallOptions,
  ): Record<string, string> {
    // Without headers of the caller's, no map: the SDK's own names are plain keys.
    const headers: Record<string, string> =
      this.#defaultHeaders.size === 0 && options.headers === undefined
        ? {}
        : Object.fromEntries(customHeaders(this.#defaultHeaders, options.headers, 'headers'));
    headers.accept = 'application/json';
    headers.authorization = `Bearer ${this.#credential(endpoint, options)}`;
    if (this.#userAgent) headers['user-agent'] = this.#userAgent;
    if (cached) headers['if-none-match'] = cached.etag;
    return headers;
  }

  #retry(method: string, limit: number, keyed: boolean): RetryOptions {
    const key = `${method} ${limit} ${keyed}`;
    let found = this.#retries.get(key);
    if (!found) {
      found = retryPolicy(method, limit, this.#random, keyed);
      this.#retries.set(key, found);
    }
    return found;
  }

  #credential(endpoint: Endpoint, options: CallOptions): string {
    if (endpoint.access !== 'test-helpers') return this.#token;
    const key = options.testHelpersKey ?? this.#options.testHelpersKey;
    if (!key) throw new MarketplaceError('The test helpers need `testHelpersKey` (client or call option)');
    return key;
  }

  #url(path: string, query: Readonly<Record<string, unknown>>): string {
    let search = '';
    for (const name in query) {
      const value = query[name];
      if (value === undefined) continue;
      const text = String(value);
      // Names and values that form encoding leaves as they are (`page=2`) are written as they are.
      if (!FORM_VERBATIM.test(name) || !FORM_VERBATIM.test(text)) return this.#encodedUrl(path, query);
      search += `${search === '' ? '?' : '&'}${name}=${text}`;
    }
    return `${this.#baseUrl}${path}${search}`;
  }

  #encodedUrl(path: string, query: Readonly<Record<string, unknown>>): string {
    const search = new URLSearchParams();
    for (const name in query) {
      const value = query[name];
      if (value !== undefined) search.set(name, String(value));
    }
    return `${this.#baseUrl}${path}?${search}`;
  }
}

/**
 * Headers the SDK sets itself, and the option that sets each: the token goes with its cache key,
 * the validators with the cache, the key with the retries, the type with the body.
 */
const OWN_HEADERS: Readonly<Record<string, string>> = {
  accept: 'none (the API answers JSON)',
  authorization: '`token` (or `testHelpersKey`)',
  'user-agent': '`userAgent`',
  'if-none-match': '`cache`',
  'idempotency-key': '`idempotencyKey`',
  'content-type': 'none (set from the body)',
};

/**
 * `extra` over `base`, names in lowercase; a `null` value leaves the header out, an `undefined`
 * one (an unset environment variable) is as if it were not named. A header the SDK sets itself,
 * or one `fetch` would refuse to send (its name or its value), is a `TypeError` naming the option:
 * a `ClientOptionError` for `defaultHeaders`, checked when the client is made, rather than
 * `fetch`'s own error on every request, which names no option. A value is never quoted (a header
 * may carry a key).
 */
function customHeaders(
  base: ReadonlyMap<string, string>,
  extra: Readonly<Record<string, string | null | undefined>> | undefined,
  option: 'defaultHeaders' | 'headers',
): Map<string, string> {
  // A map, not an object: a header named `__proto__` or `constructor` is a header like any other.
  const headers = new Map(base);
  if (extra === undefined) return headers;
  const refuse = (problem: string) =>
    option === 'defaultHeaders'
      ? new ClientOptionError(option, problem)
      : new TypeError(`Marketplace: \`${option}\` ${problem}`);
  for (const [name, value] of Object.entries(extra)) {
    const key = name.toLowerCase();
    const own = Object.hasOwn(OWN_HEADERS, key) ? OWN_HEADERS[key] : undefined;
    if (own !== undefined) throw refuse(`cannot set ${name}; the SDK sets it (option: ${own})`);
    if (!HEADER_NAME.test(name))
      throw refuse(
        `has an invalid header name ${JSON.stringify(name)}: a name is one word of letters, digits and !#$%&'*+-.^_\`|~`,
      );
    if (value === null) headers.delete(key);
    else if (value !== undefined) {
      // `fetch` trims the value's surrounding whitespace (a trailing newline) before checking it.
      if (!HEADER_VALUE.test(value.replace(HTTP_WHITESPACE_AROUND, '')))
        throw refuse(`${name}'s value ${HEADER_CHARACTERS}`);
      headers.set(key, value);
    }
  }
  return headers;
}

/** A header's name, an HTTP token (RFC 9110, 5.6.2). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const HEADER_CHARACTERS =
  'holds a character an HTTP header cannot carry (a line break, a control character or one above U+00FF)';

/** The characters `URLSearchParams` writes as they are (application/x-www-form-urlencoded). */
const FORM_VERBATIM = /^[A-Za-z0-9*._-]*$/;

/** 303 (transitions) and 304 (cache) are answers to read, not errors. */
const throwHttpErrors = (status: number) => status >= 400;

/** The response handed to callers: its body was read here, so they get a copy they can read again. */
function readableCopy(response: Response, status: number, text: string): Response {
  const bodyless = status === 204 || status === 304 || text === '';
  const init = { status, statusText: response.statusText, headers: response.headers };
  return madeResponse(bodyless ? null : text, init, response.url);
}

function missing(token: boolean, baseUrl: boolean): string {
  const names = [token && '`token` (or MARKETPLACE_TOKEN)', baseUrl && '`baseUrl` (or MARKETPLACE_BASE_URL)'];
  const pass =
    token && baseUrl
      ? 'pass them as options or set the environment variables'
      : 'pass it as an option or set the environment variable';
  return `Marketplace: ${names.filter(Boolean).join(' and ')} required: ${pass}`;
}

/**
 * A token as it is sent, in `Authorization: Bearer …`: one word of printable ASCII. Anything else
 * would fail in `fetch` with an error that quotes the header, the token with it; this message
 * never holds the token.
 */
function checkedToken(token: string): string {
  // The two usual slips are said as such: a header's value pasted whole, a file read with its newline.
  if (/^bearer\s/i.test(token))
    throw new ClientOptionError(
      'token',
      "starts with 'Bearer ': pass the token without the 'Bearer ' prefix (the SDK adds it)",
    );
  if (/^[\x21-\x7e]+(\r?\n)+$/.test(token))
    throw new ClientOptionError('token', 'ends with a line break: trim it');
  if (!/^[\x21-\x7e]+$/.test(token))
    throw new ClientOptionError(
      'token',
      'holds a character an HTTP header cannot carry (a space, a line break, a control or non-ASCII character); a token is one word of printable ASCII',
    );
  return token;
}

/** `localhost:4870`, `api.example.com:443`: a host name and a port, nothing else. */
const HOST_AND_PORT = /^[A-Za-z0-9.-]+:\d{1,5}$/;

/**
 * The base URL the paths are appended to, without its trailing slashes: an absolute http(s) URL
 * (a path prefix is kept), with no user name or password (refused, and masked in the message)
 * and no query or fragment (the paths could not follow them).
 */
function checkedBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ClientOptionError('baseUrl', `is not an absolute URL: ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ClientOptionError(
      'baseUrl',
      // `localhost:4870` reads as the scheme `localhost:`: a host and port alone (no credential
      // can hide in one) is given back with the scheme it lacks.
      HOST_AND_PORT.test(baseUrl)
        ? `must start with http:// or https:// (http://${baseUrl}?)`
        : `must be an http or https URL, not ${url.protocol}`,
    );
  if (url.username || url.password) {
    url.username = url.username && '***';
    url.password = url.password && '***';
    throw new ClientOptionError(
      'baseUrl',
      `must not hold a user name or password (the token is the credential): ${url}`,
    );
  }
  // `href`, not `search` and `hash`: an empty `?` or `#` has neither, and every path would go
  // into it (`…/docs#/organizations.json` asks for `/docs`).
  if (/[?#]/.test(url.href))
    throw new ClientOptionError('baseUrl', `must not have a query or fragment: ${url}`);
  return String(url).replace(/\/+$/, '');
}

/** The longest timer Node and browsers keep (a longer one fires at once). */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** A client option (or a call's) that is an integer of at least `min`, and at most `max`. */
function integerAtLeast(min: number, name: string, value: number, max = Number.MAX_SAFE_INTEGER): number {
  return checkedInteger(
    value,
    { min, max },
    () =>
      `Marketplace: \`${name}\` must be an integer of at least ${min}${max < Number.MAX_SAFE_INTEGER ? ` and at most ${max}` : ''}`,
  );
}

/** No answer within `timeout`, on each of `attempts` (said when more than one). */
const timedOut = (endpoint: Endpoint, url: string, timeout: number, attempts: number, cause?: unknown) =>
  new APIConnectionTimeoutError(
    `No response within ${timeout} ms${attempts > 1 ? ` (${attempts} attempts)` : ''}: ${endpoint.method} ${url}`,
    { cause },
  );

/**
 * What a failure without a system reason may be. A browser gives none, on purpose: a request its
 * CORS check refused fails exactly as one that found no server, so on another origin than the
 * page's both are named (the console, which the page cannot read, says which).
 */
function unexplained(url: string): string {
  const page = (globalThis as { location?: { origin?: unknown } }).location?.origin;
  if (typeof page !== 'string' || page === 'null' || new URL(url).origin === page) return '';
  return ` (the browser gives no reason: the API is down or unreachable, or it does not allow requests from this page's origin, ${page} (CORS); the browser's console says which)`;
}

/**
 * A `userAgent` the `User-Agent` header can carry, checked in every runtime (a browser ignores it,
 * but the same code runs in Node): the SDK's product token follows it, so a trailing line break
 * is inside the header, and `fetch` would refuse every request with an error naming no option.
 */
function checkedUserAgent(prefix: string | undefined): string | undefined {
  if (prefix === undefined || HEADER_VALUE.test(prefix)) return prefix;
  if (/^[^\r\n]*(\r?\n)+$/.test(prefix) && HEADER_VALUE.test(prefix.trimEnd()))
    throw new ClientOptionError('userAgent', 'ends with a line break: trim it');
  throw new ClientOptionError('userAgent', HEADER_CHARACTERS);
}

/** Browsers forbid setting `User-Agent`, so it is only sent from Node. */
function userAgent(prefix: string | undefined): string | undefined {
  const node = globalThis.process?.versions?.node;
  if (node === undefined) return undefined;
  const sdk = `marketplace-sdk/${VERSION} node/${node} (${process.platform}; ${process.arch})`;
  return prefix ? `${prefix} ${sdk}` : sdk;
}
