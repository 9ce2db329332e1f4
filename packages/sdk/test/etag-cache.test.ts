/** The ETag cache of one client, on its own (the client's use of it: cache.test.ts). */
import { describe, expect, test } from 'vitest';
import { LruCache, tokenFingerprint } from '../src/core/cache.js';
import { ETagCache } from '../src/core/etag-cache.js';

const URL_A = 'https://api.test/organizations/a.json';
/** A call's bound on the store (its method for the log, its timeout). */
const BOUND = { method: 'GET', timeout: 30_000 };

describe('ETagCache', () => {
  test('keys are the token fingerprint and the URL, never the token', async () => {
    const store = new LruCache();
    const cache = new ETagCache(store, 'secret-token');
    const slot = await cache.lookup(URL_A, BOUND);
    expect(slot).toEqual({
      url: URL_A,
      key: `${await tokenFingerprint('secret-token')} ${URL_A}`,
      cached: undefined,
    });
    expect(slot.key).not.toContain('secret-token');
  });

  test('save keeps the body under its ETag; lookup finds it again', async () => {
    const cache = new ETagCache(new LruCache(), 't');
    await cache.save(await cache.lookup(URL_A, BOUND), BOUND, 'W/"1"', { id: 'a' });
    expect((await cache.lookup(URL_A, BOUND)).cached).toEqual({ etag: 'W/"1"', body: { id: 'a' } });
  });

  test('an answer without an ETag drops the old copy', async () => {
    const cache = new ETagCache(new LruCache(), 't');
    await cache.save(await cache.lookup(URL_A, BOUND), BOUND, 'W/"1"', { id: 'a' });
    await cache.save(await cache.lookup(URL_A, BOUND), BOUND, null, { id: 'a' });
    expect((await cache.lookup(URL_A, BOUND)).cached).toBeUndefined();
  });

  test('drop and forget remove a copy; other tokens sharing the store keep theirs', async () => {
    const store = new LruCache();
    const mine = new ETagCache(store, 'mine');
    const theirs = new ETagCache(store, 'theirs');
    for (const cache of [mine, theirs])
      await cache.save(await cache.lookup(URL_A, BOUND), BOUND, 'W/"1"', {});
    expect(store.size).toBe(2);
    await mine.forget(URL_A, BOUND);
    expect((await mine.lookup(URL_A, BOUND)).cached).toBeUndefined();
    expect((await theirs.lookup(URL_A, BOUND)).cached).toBeDefined();
    await theirs.drop(await theirs.lookup(URL_A, BOUND), BOUND);
    expect(store.size).toBe(0);
  });
});
