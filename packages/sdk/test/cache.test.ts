import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  type CachedResponse,
  type CacheStore,
  type LogDetails,
  type Logger,
  LruCache,
  NotFoundError,
  ValidationError,
} from '../src/index.js';
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

describe('a store that fails', () => {
  const collabUrl = `${BASE}/organizations/${ORG_ID}/collabs/${COLLAB_ID}.json`;
  const unavailable = () => {
    throw new Error('cache store unavailable');
  };
  /** A store whose named methods throw (sync) or reject (async); the others work, in memory. */
  function failing(
    methods: (keyof CacheStore)[],
    async = false,
  ): CacheStore & { map: Map<string, CachedResponse> } {
    const map = new Map<string, CachedResponse>();
    const working: CacheStore = {
      get: (key) => map.get(key),
      set: (key, value) => void map.set(key, value),
      delete: (key) => void map.delete(key),
    };
    const method = <K extends keyof CacheStore>(name: K): CacheStore[K] => {
      const run = (methods.includes(name) ? unavailable : working[name]) as (...args: unknown[]) => never;
      return (async ? async (...args: unknown[]) => run(...args) : run) as CacheStore[K];
    };
    return { map, get: method('get'), set: method('set'), delete: method('delete') };
  }
  /** The entry a store failure is logged as. */
  const storeWarning = (cacheStore: keyof CacheStore, error: string, method = 'GET', url = orgUrl) => ({
    message: `marketplace cache store ${cacheStore} failed`,
    details: { method, url, attempt: 0, cacheStore, error },
  });
  function recordingLogger() {
    const warnings: { message: string; details: LogDetails }[] = [];
    const logger: Logger = {
      debug: () => {},
      warn: (message, details) => warnings.push({ message, details }),
    };
    return { warnings, logger };
  }

  afterEach(() => {
    vi.useRealTimers();
  });

  test.each([
    ['throws', false],
    ['rejects', true],
  ])(
    'a delete that %s after an update, a delete or a transition: each resolves as the server answered, with a warning',
    async (_how, async) => {
      server.use(
        http.patch(collabUrl, () => HttpResponse.json({ ...collab, name: 'New name' })),
        http.delete(collabUrl, () => new HttpResponse(null, { status: 204 })),
        http.post(
          `${BASE}/organizations/${ORG_ID}/collabs/${COLLAB_ID}/submit.json`,
          () => new HttpResponse(null, { status: 303 }),
        ),
        http.get(collabUrl, () =>
          HttpResponse.json({ ...collab, state: 'submitted_for_review' }, { headers: { ETag: ETAG } }),
        ),
      );
      const { warnings, logger } = recordingLogger();
      const sdk = client({ cache: failing(['delete'], async), logger });
      await expect(sdk.collabs.update(ORG_ID, COLLAB_ID, { name: 'New name' })).resolves.toMatchObject({
        name: 'New name',
      });
      await expect(sdk.collabs.submit(ORG_ID, COLLAB_ID)).resolves.toMatchObject({
        state: 'submitted_for_review',
      });
      await expect(sdk.collabs.delete(ORG_ID, COLLAB_ID)).resolves.toBeUndefined();
      expect(seen.map((r) => r.method)).toEqual(['PATCH', 'POST', 'GET', 'DELETE']);
      expect(warnings).toEqual(
        ['PATCH', 'POST', 'DELETE'].map((method) =>
          storeWarning('delete', 'Error: cache store unavailable', method, collabUrl),
        ),
      );
    },
  );

  test('a failing delete does not hide the server’s own error (a 422)', async () => {
    server.use(
      http.patch(collabUrl, () => HttpResponse.json({ errors: { name: ['is too long'] } }, { status: 422 })),
    );
    const error = await client({ cache: failing(['delete']) })
      .collabs.update(ORG_ID, COLLAB_ID, { name: 'x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ status: 422 });
  });

  test('a failing delete does not hide a read’s 404 either', async () => {
    serveOrganization();
    const store = failing(['delete']);
    const sdk = client({ cache: store });
    await sdk.organizations.retrieve(ORG_ID);
    server.use(http.get(orgUrl, () => HttpResponse.json({ error: 'Not found' }, { status: 404 })));
    await expect(sdk.organizations.retrieve(ORG_ID)).rejects.toBeInstanceOf(NotFoundError);
  });

  test.each([
    ['throws', false],
    ['rejects', true],
  ])('a get that %s is a miss: the read is sent without If-None-Match and answered', async (_how, async) => {
    serveOrganization();
    const { warnings, logger } = recordingLogger();
    const sdk = client({ cache: failing(['get'], async), logger });
    await expect(sdk.organizations.retrieve(ORG_ID)).resolves.toEqual(organization);
    await expect(sdk.organizations.retrieve(ORG_ID)).resolves.toEqual(organization);
    expect(ifNoneMatch()).toEqual([null, null]);
    expect(warnings.map((w) => [w.message, w.details.cacheStore, w.details.method, w.details.url])).toEqual([
      ['marketplace cache store get failed', 'get', 'GET', orgUrl],
      ['marketplace cache store get failed', 'get', 'GET', orgUrl],
    ]);
  });

  test.each([
    ['throws', false],
    ['rejects', true],
  ])('a set that %s caches nothing: the read is answered', async (_how, async) => {
    serveOrganization();
    const { warnings, logger } = recordingLogger();
    const store = failing(['set'], async);
    const sdk = client({ cache: store, logger });
    await expect(sdk.organizations.retrieve(ORG_ID)).resolves.toEqual(organization);
    await expect(sdk.organizations.retrieve(ORG_ID)).resolves.toEqual(organization);
    expect(ifNoneMatch()).toEqual([null, null]);
    expect(store.map.size).toBe(0);
    expect(warnings.map((w) => [w.message, w.details.error])).toEqual([
      ['marketplace cache store set failed', 'Error: cache store unavailable'],
      ['marketplace cache store set failed', 'Error: cache store unavailable'],
    ]);
  });

  test.each([
    ['a string (a JSON text not parsed)', JSON.stringify({ etag: ETAG, body: organization }), 'a string'],
    ['a number', 42, 'a number'],
    ['an array', [ETAG, organization], 'an array'],
    ['an object without an etag', { body: organization }, 'an object whose etag is undefined'],
    ['an etag that is a number', { etag: 5, body: organization }, 'an object whose etag is a number'],
    ['an empty etag', { etag: '', body: organization }, 'an etag a header cannot hold'],
    [
      'an etag with a line feed',
      { etag: 'W/"v1"\nX-Injected: 1', body: organization },
      'an etag a header cannot hold',
    ],
    [
      'an etag with a carriage return',
      { etag: 'W/"v1"\r', body: organization },
      'an etag a header cannot hold',
    ],
    ['an etag with a NUL', { etag: 'W/"v1\0"', body: organization }, 'an etag a header cannot hold'],
    [
      'an etag with a character beyond a byte',
      { etag: 'W/"v1\u2028"', body: organization },
      'an etag a header cannot hold',
    ],
    ['the server’s etag without a body', { etag: ETAG }, 'an object without a body'],
  ])(
    'a get that answers %s is a miss: the read is sent without If-None-Match and answered, with one warning per call',
    async (_what, answer, said) => {
      serveOrganization();
      const { warnings, logger } = recordingLogger();
      const sets: CachedResponse[] = [];
      const store = {
        get: () => answer,
        set: (_key: string, value: CachedResponse) => void sets.push(value),
        delete: () => {},
      } as unknown as CacheStore;
      const sdk = client({ cache: store, logger });
      await expect(sdk.organizations.retrieve(ORG_ID)).resolves.toEqual(organization);
      await expect(sdk.organizations.retrieve(ORG_ID)).resolves.toEqual(organization);
      expect(ifNoneMatch()).toEqual([null, null]);
      expect(sets).toEqual([
        { etag: ETAG, body: organization },
        { etag: ETAG, body: organization },
      ]);
      const warning = storeWarning('get', `answered ${said}, not { etag: string, body }`);
      expect(warnings).toEqual([warning, warning]);
    },
  );

  test('a kept body its schema refuses, revalidated by a 304, is read again without If-None-Match: the call ends as the server answers, with one warning', async () => {
    serveOrganization();
    const { warnings, logger } = recordingLogger();
    const sets: CachedResponse[] = [];
    // The server's current tag, but a body this SDK's schema refuses (another version wrote it, or
    // it was altered in the store).
    const store: CacheStore = {
      get: () => ({ etag: ETAG, body: { id: 1 } }),
      set: (_key, value) => void sets.push(value),
      delete: () => {},
    };
    const sdk = client({ cache: store, logger });
    await expect(sdk.organizations.retrieve(ORG_ID)).resolves.toEqual(organization);
    expect(ifNoneMatch()).toEqual([ETAG, null]);
    expect(sets).toEqual([{ etag: ETAG, body: organization }]);
    expect(warnings).toEqual([
      storeWarning(
        'get',
        expect.stringMatching(/^answered a body its schema refuses \(id: must be a string; .*\)$/),
      ),
    ]);
  });

  test.each([
    ['null (as Redis answers a missing key)', null],
    ['undefined', undefined],
  ])('a get that answers %s is a miss without a warning', async (_what, answer) => {
    serveOrganization();
    const { warnings, logger } = recordingLogger();
    const store: CacheStore = { get: async () => answer, set: () => {}, delete: () => {} };
    const sdk = client({ cache: store, logger });
    await expect(sdk.organizations.retrieve(ORG_ID)).resolves.toEqual(organization);
    expect(ifNoneMatch()).toEqual([null]);
    expect(warnings).toEqual([]);
  });

  test('a get that never settles is a miss once the call’s timeout has passed', async () => {
    serveOrganization();
    const { warnings, logger } = recordingLogger();
    const hung: CacheStore = { get: () => new Promise(() => {}), set: () => {}, delete: () => {} };
    vi.useFakeTimers();
    const call = client({ cache: hung, logger, timeout: 500 }).organizations.retrieve(ORG_ID);
    await vi.advanceTimersByTimeAsync(499);
    expect(seen).toHaveLength(0);
    // Then the request is sent, with the whole of its own timeout.
    await vi.advanceTimersByTimeAsync(100);
    await expect(call).resolves.toEqual(organization);
    expect(ifNoneMatch()).toEqual([null]);
    expect(warnings).toEqual([storeWarning('get', 'no answer within 500 ms')]);
  });

  test('a get that never settles: aborting the call rejects it with the signal’s reason, and sends nothing', async () => {
    const hung: CacheStore = { get: () => new Promise(() => {}), set: () => {}, delete: () => {} };
    const controller = new AbortController();
    const call = client({ cache: hung }).organizations.retrieve(ORG_ID, { signal: controller.signal });
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(seen).toHaveLength(0);
  });

  test('a delete that never settles after an update: the update resolves once the call’s timeout has passed', async () => {
    server.use(http.patch(collabUrl, () => HttpResponse.json(collab)));
    const { warnings, logger } = recordingLogger();
    const hung: CacheStore = { get: () => undefined, set: () => {}, delete: () => new Promise(() => {}) };
    vi.useFakeTimers();
    const call = client({ cache: hung, logger, timeout: 500 }).collabs.update(ORG_ID, COLLAB_ID, {
      name: 'x',
    });
    await vi.advanceTimersByTimeAsync(500);
    await expect(call).resolves.toEqual(collab);
    expect(warnings.map((w) => [w.message, w.details.error])).toEqual([
      ['marketplace cache store delete failed', 'no answer within 500 ms'],
    ]);
  });
});
