import { endpoints } from '@app/schemas';
import { http } from 'msw';
import { describe, expect, test } from 'vitest';
import { Page } from '../src/index.js';
import { BASE, client, mockServer, ORG_ID, organizations, pageOf, pageParam } from './fixtures.js';

const server = mockServer();
const all = organizations(45); // pages of 20, 20, 5

function serve(items: readonly unknown[]) {
  const asked: number[] = [];
  server.use(
    http.get(`${BASE}/organizations.json`, ({ request }) => {
      asked.push(pageParam(request));
      return pageOf(items, pageParam(request));
    }),
  );
  return asked;
}

describe('awaiting list()', () => {
  test('gives the first page with its metadata from the headers', async () => {
    serve(all);
    const page = await client().organizations.list();
    expect(page).toBeInstanceOf(Page);
    expect(page.data.map((o) => o.id)).toEqual(all.slice(0, 20).map((o) => o.id));
    expect(page).toMatchObject({ page: 1, pageItems: 20, totalCount: 45, totalPages: 3 });
    expect(page.hasNextPage()).toBe(true);
  });

  test('getNextPage() walks to the last page, which has no next page', async () => {
    serve(all);
    const second = await (await client().organizations.list()).getNextPage();
    const third = await second.getNextPage();
    expect([second.page, third.page, third.data.length]).toEqual([2, 3, 5]);
    expect(third.hasNextPage()).toBe(false);
    await expect(third.getNextPage()).rejects.toThrow(/last page/);
  });

  test('a page given otherwise than as a number is read as the server would read it', async () => {
    const asked = serve(all);
    await client().organizations.list({ page: '2' as never });
    // Inherited, not its own: read all the same.
    await client().organizations.list(Object.create({ page: 3 }));
    await client().request(endpoints.organizations.list, { query: Object.create({ page: 2 }) });
    expect(asked).toEqual([2, 3, 2]);
    await expect(client().organizations.list({ page: 1.5 })).rejects.toMatchObject({
      errors: { page: ['must be a positive integer'] },
    });
  });

  test('{ page } starts elsewhere', async () => {
    const asked = serve(all);
    const page = await client().organizations.list({ page: 3 });
    expect(page.data.map((o) => o.id)).toEqual(all.slice(40).map((o) => o.id));
    expect(asked).toEqual([3]);
  });

  test('nothing is fetched until the promise is awaited or iterated', async () => {
    const asked = serve(all);
    const pending = client().organizations.list();
    await Promise.resolve();
    expect(asked).toEqual([]);
    await pending;
    await pending;
    expect(asked).toEqual([1]);
  });
});

describe('iterating list()', () => {
  test('yields every item of three pages in order, one request per page', async () => {
    const asked = serve(all);
    const ids: string[] = [];
    for await (const org of client().organizations.list()) ids.push(org.id);
    expect(ids).toEqual(all.map((o) => o.id));
    expect(asked).toEqual([1, 2, 3]);
  });

  test('an empty list yields nothing after a single request', async () => {
    const asked = serve([]);
    const page = await client().organizations.list();
    expect(page).toMatchObject({ data: [], totalCount: 0, totalPages: 1 });
    expect(await client().organizations.list().toArray()).toEqual([]);
    expect(asked).toEqual([1, 1]);
  });

  test('from { page } onwards', async () => {
    serve(all);
    const items = await client().organizations.list({ page: 2 }).toArray();
    expect(items.map((o) => o.id)).toEqual(all.slice(20).map((o) => o.id));
  });

  test('toArray({ limit }) fetches only the pages it needs', async () => {
    const asked = serve(all);
    const items = await client().organizations.list().toArray({ limit: 25 });
    expect(items.map((o) => o.id)).toEqual(all.slice(0, 25).map((o) => o.id));
    expect(asked).toEqual([1, 2]);
  });

  test('toArray({ limit }) within the first page fetches one page, even with concurrency', async () => {
    const asked = serve(all);
    const items = await client().organizations.list({}, { concurrency: 3 }).toArray({ limit: 20 });
    expect(items).toHaveLength(20);
    expect(asked).toEqual([1]);
  });

  test('next() called again before the last call settles still gives each item once, in order', async () => {
    const asked = serve(all);
    const iterator = client().organizations.list()[Symbol.asyncIterator]();
    const results = await Promise.all(Array.from({ length: 47 }, () => iterator.next()));
    expect(results.slice(0, 45).map((r) => r.value?.id)).toEqual(all.map((o) => o.id));
    expect(results.slice(45)).toEqual([
      { value: undefined, done: true },
      { value: undefined, done: true },
    ]);
    expect(asked).toEqual([1, 2, 3]);
  });

  test('after a failed page, iteration is over', async () => {
    server.use(
      http.get(`${BASE}/organizations.json`, ({ request }) =>
        pageParam(request) === 2 ? Response.json({ error: 'Not found' }, { status: 404 }) : pageOf(all, 1),
      ),
    );
    const iterator = client().organizations.list()[Symbol.asyncIterator]();
    for (let i = 0; i < 20; i++) expect((await iterator.next()).done).toBe(false);
    await expect(iterator.next()).rejects.toMatchObject({ status: 404 });
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
  });

  test('breaking out of the loop stops fetching', async () => {
    const asked = serve(all);
    for await (const org of client().organizations.list()) if (org.id === 'org3') break;
    expect(asked).toEqual([1]);
  });

  test('concurrency fetches following pages in parallel and still yields in order', async () => {
    const items = organizations(100); // 5 pages
    const asked: number[] = [];
    let releasePage2: () => void = () => {};
    const page2Held = new Promise<void>((resolve) => {
      releasePage2 = resolve;
    });
    server.use(
      http.get(`${BASE}/organizations.json`, async ({ request }) => {
        const page = pageParam(request);
        asked.push(page);
        // Page 2 answers only once page 3 has been asked for: that needs two requests in flight.
        if (page === 2) await page2Held;
        if (page === 3) releasePage2();
        return pageOf(items, page);
      }),
    );
    const ids = (await client().organizations.list({}, { concurrency: 2 }).toArray()).map((o) => o.id);
    expect(ids).toEqual(items.map((o) => o.id));
    expect(asked.slice(0, 3)).toEqual([1, 2, 3]);
    expect([...asked].sort()).toEqual([1, 2, 3, 4, 5]);
  });

  test.each([
    ['a break', 'break'],
    ['a throw in the loop body', 'throw'],
  ])(
    '%s aborts the pages fetched ahead (concurrency), and their rejections are handled',
    async (_what, how) => {
      const items = organizations(100); // 5 pages
      const held = new Map<number, AbortSignal>();
      let allHeld: () => void = () => {};
      const heldAll = new Promise<void>((resolve) => {
        allHeld = resolve;
      });
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      server.use(
        http.get(`${BASE}/organizations.json`, async ({ request }) => {
          const page = pageParam(request);
          if (page <= 2) return pageOf(items, page);
          // Pages 3 to 5, asked for with page 2, answer once aborted (or once the test is over).
          held.set(page, request.signal);
          if (held.size === 3) allHeld();
          await new Promise((resolve) => {
            request.signal.addEventListener('abort', resolve);
            void released.then(resolve);
          });
          return pageOf(items, page);
        }),
      );
      try {
        for await (const org of client().organizations.list({}, { concurrency: 4 })) {
          if (org.id !== 'org20') continue; // the first item of page 2
          await heldAll;
          if (how === 'throw') throw new Error('stop');
          break;
        }
      } catch (error) {
        if ((error as Error).message !== 'stop') throw error;
      }
      try {
        expect([...held].sort(([a], [b]) => a - b).map(([page, signal]) => [page, signal.aborted])).toEqual([
          [3, true],
          [4, true],
          [5, true],
        ]);
      } finally {
        release();
      }
    },
  );

  test.each([Number.NaN, -1, 2.5, Number.NEGATIVE_INFINITY])(
    'toArray({ limit: %s }) is a RangeError, and no page is fetched',
    async (limit) => {
      const asked = serve(all);
      await expect(client().organizations.list().toArray({ limit })).rejects.toThrow(
        new RangeError(`limit must be a non-negative integer (or Infinity), got ${limit}`),
      );
      expect(asked).toEqual([]);
    },
  );

  test('toArray({ limit: 0 }) fetches nothing; Infinity, like no limit, every item', async () => {
    const asked = serve(all);
    await expect(client().organizations.list().toArray({ limit: 0 })).resolves.toEqual([]);
    expect(asked).toEqual([]);
    await expect(
      client().organizations.list().toArray({ limit: Number.POSITIVE_INFINITY }),
    ).resolves.toHaveLength(45);
  });

  test('concurrency is a positive integer', () => {
    expect(() => client().organizations.list({}, { concurrency: 0 })).toThrow(RangeError);
  });

  test('a response without the pagination headers breaks the contract', async () => {
    server.use(http.get(`${BASE}/organizations.json`, () => Response.json([])));
    await expect(client().organizations.list()).rejects.toMatchObject({
      name: 'ResponseValidationError',
      message: expect.stringContaining('Current-Page'),
    });
  });
});

test('scoped collections take their path parameters', async () => {
  const asked: string[] = [];
  server.use(
    http.get(`${BASE}/organizations/:org/members.json`, ({ request, params }) => {
      asked.push(`${params.org}:${pageParam(request)}`);
      return pageOf([], 1);
    }),
  );
  await client().members.list(ORG_ID, { page: 1 });
  expect(asked).toEqual(['k3J9xQ2mLp7Z:1']);
});

describe('list().withResponse() (issue #29)', () => {
  test('gives the first page, its response (body readable) and its request id, with one request', async () => {
    const asked: number[] = [];
    server.use(
      http.get(`${BASE}/organizations.json`, ({ request }) => {
        asked.push(pageParam(request));
        const res = pageOf(all, pageParam(request));
        res.headers.set('X-Request-Id', `req-${pageParam(request)}`);
        return res;
      }),
    );
    const listed = client().organizations.list({ page: 2 });
    const { data, response, requestId } = await listed.withResponse();
    expect(data).toBeInstanceOf(Page);
    expect(data).toMatchObject({ page: 2, totalPages: 3 });
    expect(response.status).toBe(200);
    expect(response.headers.get('Total-Count')).toBe('45');
    expect(((await response.json()) as { id: string }[]).map((o) => o.id)).toEqual(
      all.slice(20, 40).map((o) => o.id),
    );
    expect(requestId).toBe('req-2');
    // The same first page, not another request.
    expect(await listed).toBe(data);
    expect((await listed.asResponse()).status).toBe(200);
    expect(asked).toEqual([2]);
  });

  test('rejects as awaiting would, with the typed error', async () => {
    server.use(
      http.get(
        `${BASE}/organizations/${ORG_ID}/collabs.json`,
        () =>
          new Response('{"error":"Not found"}', {
            status: 404,
            headers: { 'content-type': 'application/json' },
          }),
      ),
    );
    await expect(client().collabs.list(ORG_ID).withResponse()).rejects.toMatchObject({ status: 404 });
  });
});
