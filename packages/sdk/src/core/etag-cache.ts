import { HEADER_VALUE, HTTP_WHITESPACE_AROUND } from '../internal/header-value.js';
import { type CachedResponse, type CacheStore, tokenFingerprint } from './cache.js';
import type { Logger } from './logging.js';

/** A show URL's place in the cache: its key, and the copy to revalidate if there is one. */
export interface CacheSlot {
  readonly url: string;
  readonly key: string;
  readonly cached: CachedResponse | undefined;
}

/**
 * How long one call waits for the store, and for whom: the call's method (in log entries), its
 * `timeout` (ms) and its caller's signal. A store call still pending then is given up.
 */
export interface StoreBound {
  readonly method: string;
  readonly timeout: number;
  readonly signal?: AbortSignal | undefined;
}

/** A store call given up: no answer within the call's timeout, or the caller aborted. */
const GIVEN_UP = Symbol('given up');

/**
 * The ETag cache of one client: keys are the token's fingerprint and the URL, so that one user
 * never sees another's copy, even in a shared store.
 *
 * The cache only saves bandwidth (the server decides on every read), so the store can never change
 * a call's outcome: a store method that throws, rejects or does not answer within the call's
 * `timeout` is logged as a `warn` entry and otherwise ignored. A failed `get` is a miss, a failed
 * `set` or `delete` leaves whatever the store holds, which the server revalidates on the next read.
 */
export class ETagCache {
  readonly #store: CacheStore;
  readonly #token: string;
  readonly #logger: Logger | undefined;
  #fingerprint: Promise<string> | undefined;

  constructor(store: CacheStore, token: string, logger?: Logger) {
    this.#store = store;
    this.#token = token;
    this.#logger = logger;
  }

  /** The store, for a client made by `withOptions` to share. */
  get store(): CacheStore {
    return this.#store;
  }

  /**
   * The copy of `url` to revalidate; none when the store has none (`undefined` or `null`), fails,
   * is too slow, or answers something else than `{ etag, body }` with an etag a header can hold.
   */
  async lookup(url: string, bound: StoreBound): Promise<CacheSlot> {
    const key = await this.#key(url);
    // Typed as what a store may really answer: a JavaScript store is held to no declared type.
    const answer: unknown = await this.#ask('get', url, bound, () => this.#store.get(key));
    if (answer === GIVEN_UP || answer === undefined || answer === null)
      return { url, key, cached: undefined };
    const wrong = malformed(answer);
    if (wrong === undefined) return { url, key, cached: answer as CachedResponse };
    this.#warn('get', url, bound, `answered ${wrong}, not { etag: string, body }`);
    return { url, key, cached: undefined };
  }

  /** Keeps a fresh answer; one without an `ETag` cannot be revalidated, so its old copy goes. */
  async save(slot: CacheSlot, bound: StoreBound, etag: string | null, body: unknown): Promise<void> {
    if (etag) await this.#ask('set', slot.url, bound, () => this.#store.set(slot.key, { etag, body }));
    else await this.#ask('delete', slot.url, bound, () => this.#store.delete(slot.key));
  }

  /**
   * Reports a kept body that its schema refuses, revalidated by a `304` (another SDK version, or
   * someone else, wrote it): the call reads the resource again without it.
   */
  refused(slot: CacheSlot, bound: StoreBound, issues: string): void {
    this.#warn('get', slot.url, bound, `answered a body its schema refuses (${issues})`);
  }

  /** Drops a copy that must not be served again (a 404, a 403, a body that no longer parses). */
  async drop(slot: CacheSlot, bound: StoreBound): Promise<void> {
    await this.#ask('delete', slot.url, bound, () => this.#store.delete(slot.key));
  }

  /** Drops the copy of a URL, e.g. after the SDK's own update or delete of that resource. */
  async forget(url: string, bound: StoreBound): Promise<void> {
    const key = await this.#key(url);
    await this.#ask('delete', url, bound, () => this.#store.delete(key));
  }

  /**
   * One store call, never failing: its error, or no answer within the bound's timeout, is logged
   * and the call given up. A sync store's answer is taken as it is, without a timer: the default
   * `LruCache` costs no more than before.
   */
  async #ask<T>(
    operation: 'get' | 'set' | 'delete',
    url: string,
    bound: StoreBound,
    run: () => T | Promise<T>,
  ): Promise<T | typeof GIVEN_UP> {
    try {
      const answer = run();
      return isThenable(answer) ? await within(answer, bound) : answer;
    } catch (error) {
      // An abort is the caller's, not the store's failure: the call ends with the signal's reason.
      if (bound.signal?.aborted && error === bound.signal.reason) return GIVEN_UP;
      this.#warn(operation, url, bound, error instanceof StoreTimeout ? error.message : String(error));
      return GIVEN_UP;
    }
  }

  #warn(operation: 'get' | 'set' | 'delete', url: string, bound: StoreBound, error: string): void {
    this.#logger?.warn(`marketplace cache store ${operation} failed`, {
      method: bound.method,
      url,
      attempt: 0,
      cacheStore: operation,
      error,
    });
  }

  async #key(url: string): Promise<string> {
    this.#fingerprint ??= tokenFingerprint(this.#token);
    return `${await this.#fingerprint} ${url}`;
  }
}

/**
 * What is wrong with a store's answer, e.g. `a string` (a JSON text not parsed), or nothing when it
 * is a copy to revalidate: an object with an etag `If-None-Match` can carry and a body.
 */
function malformed(answer: unknown): string | undefined {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return kind(answer);
  const { etag, body } = answer as Partial<Record<keyof CachedResponse, unknown>>;
  if (typeof etag !== 'string') return `an object whose etag is ${kind(etag)}`;
  // Sent as it is: not empty, and nothing `fetch` would trim or refuse.
  if (etag === '' || !HEADER_VALUE.test(etag) || etag.replace(HTTP_WHITESPACE_AROUND, '') !== etag)
    return 'an etag a header cannot hold';
  // The SDK keeps parsed JSON, never `undefined`: a 304 would be answered with no body to read.
  if (body === undefined) return 'an object without a body';
  return undefined;
}

/** `a string`, `an array`, `null`: enough to tell a store's author what it answered. */
function kind(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A store's answer not given within the call's timeout. */
class StoreTimeout extends Error {}

function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function';
}

/** `answer`, or a rejection once `bound.timeout` has passed or its signal aborts, whichever is first. */
function within<T>(answer: Promise<T>, { timeout, signal }: StoreBound): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
    };
    const aborted = () => {
      settle();
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      settle();
      reject(new StoreTimeout(`no answer within ${timeout} ms`));
    }, timeout);
    if (signal?.aborted) return aborted();
    signal?.addEventListener('abort', aborted, { once: true });
    Promise.resolve(answer).then(
      (value) => {
        settle();
        resolve(value);
      },
      (error: unknown) => {
        settle();
        reject(error);
      },
    );
  });
}
