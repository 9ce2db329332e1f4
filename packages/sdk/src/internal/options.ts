import type { CacheStore } from '../core/cache.js';
import type { Fetch, Logger } from '../core/logging.js';

export interface ClientOptions {
  /**
   * Personal access token, sent as `Authorization: Bearer <token>`. A `read` token can only `GET`.
   * @default process.env.MARKETPLACE_TOKEN
   * @example 'mkt_…'
   */
  token?: string | undefined;
  /**
   * Where the API lives: an origin, optionally with a path prefix. Paths get the `.json` suffix.
   * @default process.env.MARKETPLACE_BASE_URL
   * @example 'https://marketplace.example'
   */
  baseUrl?: string | URL | undefined;
  /**
   * Retries after the first attempt, on 5xx and transport errors (see README, "Retries").
   * @default 3
   * @example 0 // fail fast, e.g. in a request handler with its own deadline
   */
  maxRetries?: number | undefined;
  /**
   * Milliseconds to wait for a response, per attempt (retries get a fresh timeout).
   * @default 30_000
   * @example 5_000
   */
  timeout?: number | undefined;
  /**
   * ETag cache of the show endpoints: `true` for an in-memory LRU of 500 entries, `false` for
   * none, or a store of your own (e.g. `new LruCache(5_000)`, or one backed by Redis).
   * @default true
   * @example new LruCache(5_000)
   */
  cache?: boolean | CacheStore | undefined;
  /**
   * The `fetch` to send requests with, e.g. one with a proxy dispatcher or instrumentation.
   * @default globalThis.fetch (looked up on every request)
   * @example (input, init) => fetch(input, { ...init, dispatcher: proxyAgent })
   */
  fetch?: Fetch | undefined;
  /**
   * Your application's product token, put in front of the SDK's in the `User-Agent` (Node only;
   * browsers do not let scripts set it).
   * @default undefined
   * @example 'acme-sync/2.3 (+https://acme.example/bot)'
   */
  userAgent?: string | undefined;
  /**
   * Receives a `debug` entry for each request and response and a `warn` entry for failures and
   * 5xx (and for a failing cache store), with the `Authorization` header redacted.
   * @default a stderr logger when `MARKETPLACE_LOG` is `debug`, `info` or `warn`; none otherwise
   * @example console
   */
  logger?: Logger | undefined;
  /**
   * Key of the reference server's test helpers (`MARKETPLACE_TEST_HELPERS_KEY`), used by
   * `client.testHelpers`. Can also be given per call.
   * @default undefined
   * @example process.env.MARKETPLACE_TEST_HELPERS_KEY
   */
  testHelpersKey?: string | undefined;
  /**
   * Headers sent with every request (a gateway's key, a tracing header, a tenant id). The headers
   * the SDK sets itself cannot be given here: use `token`, `userAgent`, `cache` and
   * `idempotencyKey` (a `TypeError` names the option). A header whose value is `undefined` is not
   * sent (an unset environment variable).
   * @default {}
   * @example { 'X-Gateway-Key': process.env.GATEWAY_KEY }
   */
  defaultHeaders?: Record<string, string | undefined> | undefined;
  /**
   * Source of randomness for retry jitter, returning a number in [0, 1). Inject one to make
   * retry delays predictable in tests. A `Retry-After` the server sends is waited for whatever it
   * returns (the test kit's chaos `503`s send `Retry-After: 1`).
   * @default Math.random
   * @example () => 0 // retry at once, where the server sends no Retry-After
   */
  random?: (() => number) | undefined;
}

/** Options of a single call; they override the client's. */
export interface RequestOptions {
  /**
   * Cancels the call, including a pending retry; the promise rejects with the signal's reason.
   * @default undefined
   * @example AbortSignal.timeout(10_000)
   */
  signal?: AbortSignal | undefined;
  /**
   * Milliseconds to wait for a response, per attempt.
   * @default the client's `timeout` (30_000)
   * @example 5_000
   */
  timeout?: number | undefined;
  /**
   * Retries after the first attempt.
   * @default the client's `maxRetries` (3)
   * @example 0
   */
  maxRetries?: number | undefined;
  /**
   * `false` skips the ETag cache for this call: no `If-None-Match` is sent and nothing is stored.
   * @default true (when the client has a cache)
   * @example false
   */
  cache?: boolean | undefined;
  /**
   * The `Idempotency-Key` of a POST (1 to 255 printable ASCII characters), the same on every
   * retry of the call. Pass your own to make a call you repeat later (after a crash, from a queue)
   * count once; without it each call gets a new random UUID v4. Ignored on other methods.
   * @default a random UUID v4 per call
   * @example `order-${order.id}-publish`
   */
  idempotencyKey?: string | undefined;
  /**
   * Headers for this call, over the client's `defaultHeaders`; `null` leaves a default one out,
   * `undefined` is as if the header were not named. The headers the SDK sets itself cannot be given (see `defaultHeaders`).
   * @default {}
   * @example { traceparent: '00-…-01' }
   */
  headers?: Record<string, string | null | undefined> | undefined;
}

export interface ListOptions extends Omit<RequestOptions, 'cache' | 'idempotencyKey'> {
  /**
   * Pages fetched in parallel ahead of the one being read, once `Total-Pages` is known. Items are
   * still yielded in order.
   * @default 1
   * @example 4
   */
  concurrency?: number | undefined;
}

export interface TestHelperOptions extends Omit<RequestOptions, 'cache' | 'idempotencyKey'> {
  /**
   * Key of the reference server's test helpers (`MARKETPLACE_TEST_HELPERS_KEY`).
   * @default the client's `testHelpersKey`
   * @example process.env.MARKETPLACE_TEST_HELPERS_KEY
   */
  testHelpersKey?: string | undefined;
}

/** Every option a call may carry (test-helper calls take a key). */
export type CallOptions = RequestOptions & TestHelperOptions;
