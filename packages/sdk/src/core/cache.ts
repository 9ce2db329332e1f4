/** What the ETag cache keeps for one show URL: the validator and the JSON body it was sent with. */
export interface CachedResponse {
  readonly etag: string;
  /** The parsed JSON as received; it is validated again against its schema on every hit. */
  readonly body: unknown;
}

/**
 * Where the ETag cache lives. Keys never contain the token, only a fingerprint of it, so a shared
 * store (e.g. Redis) does not hold secrets. Methods may be sync or async. `get` answers the value
 * `set` was given, or `undefined` or `null` for none (a silent miss; Redis answers `null`). A method
 * that throws, rejects or does not answer within the call's `timeout` is logged (`warn`) and
 * otherwise ignored, as is a `get` answering anything else than `{ etag, body }` with a string
 * etag a header can hold (a string, e.g. JSON not parsed, or an etag with a line break): a failed
 * `get` is a miss, and the call ends as the server answered. A kept body its schema refuses is
 * reported when a `304` would serve it, and the read is sent again without `If-None-Match`.
 *
 * @example
 * ```ts
 * const store: CacheStore = {
 *   get: async (key) => JSON.parse((await redis.get(key)) ?? 'null'),
 *   set: async (key, value) => void (await redis.set(key, JSON.stringify(value), { EX: 3600 })),
 *   delete: async (key) => void (await redis.del(key)),
 * };
 * ```
 */
export interface CacheStore {
  get(key: string): CachedResponse | null | undefined | Promise<CachedResponse | null | undefined>;
  set(key: string, value: CachedResponse): void | Promise<void>;
  delete(key: string): void | Promise<void>;
}

/** The default store: in memory, least recently used entries evicted first. */
export class LruCache implements CacheStore {
  readonly #entries = new Map<string, CachedResponse>();

  /** @param maxEntries Entries kept before the least recently used one is dropped. @default 500 */
  constructor(readonly maxEntries = 500) {}

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): CachedResponse | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      // A Map iterates in insertion order: re-inserting marks the entry as the most recent.
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: CachedResponse): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.maxEntries) break;
      this.#entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}

/**
 * A short, one-way fingerprint of a token (SHA-256, first 96 bits in hex), so that cache keys
 * separate users without holding the secret. Node hashes synchronously; elsewhere Web Crypto does.
 */
export async function tokenFingerprint(token: string): Promise<string> {
  const nodeCrypto = globalThis.process?.getBuiltinModule?.('node:crypto');
  const digest = nodeCrypto
    ? nodeCrypto.createHash('sha256').update(token).digest()
    : new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
  return Array.from(digest.subarray(0, 12), (b) => b.toString(16).padStart(2, '0')).join('');
}
