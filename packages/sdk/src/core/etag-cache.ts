import { type CachedResponse, type CacheStore, tokenFingerprint } from './cache.js';

/** A show URL's place in the cache: its key, and the copy to revalidate if there is one. */
export interface CacheSlot {
  readonly key: string;
  readonly cached: CachedResponse | undefined;
}

/**
 * The ETag cache of one client: keys are the token's fingerprint and the URL, so that one user
 * never sees another's copy, even in a shared store.
 */
export class ETagCache {
  readonly #store: CacheStore;
  readonly #token: string;
  #fingerprint: Promise<string> | undefined;

  constructor(store: CacheStore, token: string) {
    this.#store = store;
    this.#token = token;
  }

  /** The store, for a client made by `withOptions` to share. */
  get store(): CacheStore {
    return this.#store;
  }

  async lookup(url: string): Promise<CacheSlot> {
    const key = await this.#key(url);
    return { key, cached: await this.#store.get(key) };
  }

  /** Keeps a fresh answer; one without an `ETag` cannot be revalidated, so its old copy goes. */
  async save(slot: CacheSlot, etag: string | null, body: unknown): Promise<void> {
    await (etag ? this.#store.set(slot.key, { etag, body }) : this.#store.delete(slot.key));
  }

  /** Drops a copy that must not be served again (a 404, a 403, a body that no longer parses). */
  async drop(slot: CacheSlot): Promise<void> {
    await this.#store.delete(slot.key);
  }

  /** Drops the copy of a URL, e.g. after the SDK's own update or delete of that resource. */
  async forget(url: string): Promise<void> {
    await this.#store.delete(await this.#key(url));
  }

  async #key(url: string): Promise<string> {
    this.#fingerprint ??= tokenFingerprint(this.#token);
    return `${await this.#fingerprint} ${url}`;
  }
}
