import { HttpResponse, http } from 'msw';
import { describe, expect, test } from 'vitest';
import { type CachedResponse, type CacheStore, LruCache, NotFoundError } from '../src/index.js';
import {
  BASE,
  COLLAB_ID,
  client,
  collab,
  mockServer,
  ORG_ID,
  organization,
  recordRequests,
  TOKEN,
} from './fixtures.js';

const server = mockServer();
const seen = recordRequests(server);
const orgUrl = `${BASE}/organizations/${ORG_ID}.json`;
const ETAG = 'W/"v1"';

/** A show endpoint that answers 304 when `If-None-Match` carries the current tag. */
function serveOrganization(body: object = organization, etag = ETAG) {
  server.use(
    http.get(orgUrl, ({ request }) =>
      request.headers.get('if-none-match') === etag
        ? new HttpResponse(null, { status: 304, headers: { ETag: etag } })
        : HttpResponse.json(body, { headers: { ETag: etag } }),
    ),
  );
}

const ifNoneMatch = () => seen.map((r) => r.headers.get('if-none-match'));

describe('conditional GET', () => {
  test('a 304 is answered from the cache', async () => {
    serveOrganization();
    const sdk = client();
    const first = await sdk.organizations.retrieve(ORG_ID);
    const second = await sdk.organizations.retrieve(ORG_ID);
    expect(second).toEqual(first);
    expect(second).not.toBe(first); // a fresh copy, so callers cannot mutate the cache
    expect(ifNoneMatch()).toEqual([null, ETAG]);
  });

  test('a changed resource (200 with a new tag) replaces the entry', async () => {
    serveOrganization();
    const sdk = client();
    await sdk.organizations.retrieve(ORG_ID);
    serveOrganization({ ...organization, name: 'Renamed' }, 'W/"v2"');
    expect((await sdk.organizations.retrieve(ORG_ID)).name).toBe('Renamed');
    expect((await sdk.organizations.retrieve(ORG_ID)).name).toBe('Renamed');
    expect(ifNoneMatch()).toEqual([null, ETAG, 'W/"v2"']);
  });

  test('a response without ETag is not cached', async () => {
    server.use(http.get(orgUrl, () => HttpResponse.json(organization)));
    const sdk = client();
    await sdk.organizations.retrieve(ORG_ID);
    await sdk.organizations.retrieve(ORG_ID);
    expect(ifNoneMatch()).toEqual([null, null]);
  });

  test('collections are never cached', async () => {
    server.use(
      http.get(`${BASE}/organizations.json`, () =>
        HttpResponse.json([], {
          headers: {
            ETag: ETAG,
            'Current-Page': '1',
            'Page-Items': '20',
            'Total-Count': '0',
            'Total-Pages': '1',
          },
        }),
      ),
    );
    const sdk = client();
    await sdk.organizations.list();
    await sdk.organizations.list();
    expect(ifNoneMatch()).toEqual([null, null]);
  });

  test('a 404 drops the entry', async () => {
    serveOrganization();
    const sdk = client();
    await sdk.organizations.retrieve(ORG_ID);
    server.use(http.get(orgUrl, () => HttpResponse.json({ error: 'Not found' }, { status: 404 })));
    await expect(sdk.organizations.retrieve(ORG_ID)).rejects.toBeInstanceOf(NotFoundError);
    serveOrganization();
    await sdk.organizations.retrieve(ORG_ID);
    expect(ifNoneMatch()).toEqual([null, ETAG, null]);
  });
});

describe('keys', () => {
  test('one token never gets a hit on another token’s entry, even in a shared store', async () => {
    serveOrganization();
    const store = new LruCache();
    await client({ cache: store }).organizations.retrieve(ORG_ID);
    await client({ cache: store, token: 'mkt_someone_else' }).organizations.retrieve(ORG_ID);
    expect(ifNoneMatch()).toEqual([null, null]);
    expect(store.size).toBe(2);
  });

  test('hold a fingerprint of the token, never the token', async () => {
    serveOrganization();
    const keys: string[] = [];
    const values: CachedResponse[] = [];
    const store: CacheStore = {
      get: () => undefined,
      set: (key, value) => {
        keys.push(key);
        values.push(value);
      },
      delete: () => {},
    };
    await client({ cache: store }).organizations.retrieve(ORG_ID);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(new RegExp(`^[0-9a-f]{24} ${orgUrl.replace(/[.]/g, '\\.')}$`));
    expect(JSON.stringify({ keys, values })).not.toContain(TOKEN.slice(4, 20));
    expect(values[0]).toEqual({ etag: ETAG, body: organization });
  });
});

describe('invalidation by the SDK’s own writes', () => {
  const collabUrl = `${BASE}/organizations/${ORG_ID}/collabs/${COLLAB_ID}.json`;

  function serveCollab() {
    server.use(
      http.get(collabUrl, ({ request }) =>
        request.headers.get('if-none-match') === ETAG
          ? new HttpResponse(null, { status: 304, headers: { ETag: ETAG } })
          : HttpResponse.json(collab, { headers: { ETag: ETAG } }),
      ),
      http.patch(collabUrl, () => HttpResponse.json(collab)),
      http.delete(collabUrl, () => new HttpResponse(null, { status: 204 })),
    );
  }

  test('update drops the cached copy', async () => {
    serveCollab();
    const sdk = client();
    await sdk.collabs.retrieve(ORG_ID, COLLAB_ID);
    await sdk.collabs.update(ORG_ID, COLLAB_ID, { name: 'New name' });
    await sdk.collabs.retrieve(ORG_ID, COLLAB_ID);
    expect(seen.map((r) => `${r.method} ${r.headers.get('if-none-match')}`)).toEqual([
      'GET null',
      'PATCH null',
      'GET null',
    ]);
  });

  test('delete drops the cached copy', async () => {
    serveCollab();
    const sdk = client();
    await sdk.collabs.retrieve(ORG_ID, COLLAB_ID);
    await sdk.collabs.delete(ORG_ID, COLLAB_ID);
    await sdk.collabs.retrieve(ORG_ID, COLLAB_ID);
    expect(ifNoneMatch()).toEqual([null, null, null]);
  });

  test('a failed update drops it too (the server revalidates anyway)', async () => {
    serveCollab();
    server.use(
      http.patch(collabUrl, () => HttpResponse.json({ errors: { name: ['is too long'] } }, { status: 422 })),
    );
    const sdk = client();
    await sdk.collabs.retrieve(ORG_ID, COLLAB_ID);
    await expect(sdk.collabs.update(ORG_ID, COLLAB_ID, { name: 'x' })).rejects.toThrow();
    await sdk.collabs.retrieve(ORG_ID, COLLAB_ID);
    expect(ifNoneMatch()).toEqual([null, null, null]);
  });

  test('other resources keep theirs', async () => {
    serveCollab();
    serveOrganization();
    const sdk = client();
    await sdk.organizations.retrieve(ORG_ID);
    await sdk.collabs.update(ORG_ID, COLLAB_ID, { name: 'New name' });
    await sdk.organizations.retrieve(ORG_ID);
    expect(ifNoneMatch()).toEqual([null, null, ETAG]);
  });
});

describe('turning it off', () => {
  test('cache: false on the client', async () => {
    serveOrganization();
    const sdk = client({ cache: false });
    await sdk.organizations.retrieve(ORG_ID);
    await sdk.organizations.retrieve(ORG_ID);
    expect(ifNoneMatch()).toEqual([null, null]);
  });

  test('cache: false on one call neither reads nor writes the cache', async () => {
    serveOrganization();
    const store = new LruCache();
    const sdk = client({ cache: store });
    await sdk.organizations.retrieve(ORG_ID, { cache: false });
    expect(store.size).toBe(0);
    await sdk.organizations.retrieve(ORG_ID);
    await sdk.organizations.retrieve(ORG_ID, { cache: false });
    expect(ifNoneMatch()).toEqual([null, null, null]);
  });
});

describe('LruCache', () => {
  const entry = (etag: string): CachedResponse => ({ etag, body: {} });

  test('evicts the least recently used entry beyond its bound', () => {
    const lru = new LruCache(2);
    lru.set('a', entry('1'));
    lru.set('b', entry('2'));
    lru.get('a'); // now b is the oldest
    lru.set('c', entry('3'));
    expect([lru.get('a'), lru.get('b'), lru.get('c')].map((e) => e?.etag)).toEqual(['1', undefined, '3']);
    expect(lru.size).toBe(2);
  });

  test('holds 500 entries by default', () => {
    const lru = new LruCache();
    for (let i = 0; i < 600; i++) lru.set(String(i), entry(String(i)));
    expect(lru.size).toBe(500);
    expect(lru.get('99')).toBeUndefined();
    expect(lru.get('100')?.etag).toBe('100');
  });

  test('an async store works as well', async () => {
    serveOrganization();
    const map = new Map<string, CachedResponse>();
    const store: CacheStore = {
      get: async (key) => map.get(key),
      set: async (key, value) => void map.set(key, value),
      delete: async (key) => void map.delete(key),
    };
    const sdk = client({ cache: store });
    await sdk.organizations.retrieve(ORG_ID);
    await sdk.organizations.retrieve(ORG_ID);
    expect(ifNoneMatch()).toEqual([null, ETAG]);
  });
});
