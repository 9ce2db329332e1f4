/**
 * Pages of an organization's collabs and campaigns are kept by each replica until their list
 * changes (pipeline/page-cache.ts): the statement that reads the caller is told the version of the
 * kept page and reads no row while the list is still at it. These tests change the lists every way
 * the server and its operators do, read every page through two replicas that keep pages and one
 * that keeps none, and require the three to answer alike: a kept page is never older than its
 * list. One test shows that a page is kept at all, by changing a row behind the version's back.
 */
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { PageCache } from '../src/pipeline/page-cache.js';
import { TEST_HELPERS_KEY, type TestUser, useTestServer } from './harness.js';
import { createOrganization } from './organizations.js';

const server = useTestServer();
const organizationOf = (owner: TestUser) => createOrganization(server, owner);

/** Another replica on the same database, keeping `pageCacheBytes` of pages (0: none). */
async function replica(pageCacheBytes: number) {
  const app = await buildApp({ config: { ...server.config, pageCacheBytes }, orm: server.orm });
  await app.ready();
  return app;
}

type Replica = Awaited<ReturnType<typeof replica>>;

const PAGE_HEADERS = ['current-page', 'page-items', 'total-count', 'total-pages', 'content-type'];

/** A page as a client sees it: status, pagination headers and body. */
async function pageOf(app: Replica, url: string, token: string) {
  const res = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  return {
    status: res.statusCode,
    headers: Object.fromEntries(PAGE_HEADERS.map((name) => [name, res.headers[name]])),
    body: res.body,
  };
}

describe('a page kept until its list changes', () => {
  it('answers as a replica that keeps no page does, after every kind of change, on every replica', async () => {
    const owner = await server.createUser();
    const org = await organizationOf(owner);
    const other = await organizationOf(owner);
    const keeping = [server.app, await replica(16 * 1024 * 1024)];
    const reference = await replica(0);
    try {
      for (const resource of ['collabs', 'campaigns'] as const) {
        const base = `/organizations/${org.id}/${resource}`;
        const noun = resource.slice(0, -1);
        const pages = [1, 2, 3].map((page) => `${base}.json?page=${page}`);
        /** Every page through every replica, the kept ones read twice: all must agree. */
        const expectAlike = async (step: string) => {
          for (const url of pages) {
            const expected = await pageOf(reference, url, owner.token);
            expect(expected.status, step).toBe(200);
            for (const app of [...keeping, ...keeping])
              expect(await pageOf(app, url, owner.token), `${step}: ${url}`).toEqual(expected);
          }
        };
        const ids: string[] = [];
        for (let i = 0; i < 25; i++) {
          const created = await server.post(`${base}.json`, {
            token: owner.token,
            body: { [noun]: { name: `Draft ${i}`, brief: `Brief ${i}` } },
          });
          expect(created.statusCode).toBe(201);
          ids.push(created.json().id);
        }
        const [newest, second, third] = [ids[24], ids[23], ids[0]] as string[];
        await expectAlike('created');

        const renamed = await server.patch(`${base}/${second}.json`, {
          token: owner.token,
          body: { [noun]: { name: 'Renamed through the API' } },
        });
        expect(renamed.statusCode).toBe(200);
        await expectAlike('updated through the API');

        // A change the list does not show (the brief) still moves its version: kept pages are
        // read again, and answer the same.
        await server.patch(`${base}/${third}.json`, {
          token: owner.token,
          body: { [noun]: { brief: 'New' } },
        });
        await expectAlike('brief updated');

        await server.sql(`update ${resource} set name = 'Renamed in SQL' where id = ?`, [newest]);
        await expectAlike('updated in SQL');

        // Another organization's list is another version: this one's pages stay as they are.
        await server.post(`/organizations/${other.id}/${resource}.json`, {
          token: owner.token,
          body: { [noun]: { name: 'Elsewhere', brief: 'B' } },
        });
        await expectAlike("another organization's list changed");

        await expect(
          server.orm.em.fork().transactional(async (tem) => {
            await tem.execute(`update ${resource} set name = 'Rolled back' where id = ?`, [newest]);
            throw new Error('rolled back');
          }),
        ).rejects.toThrow('rolled back');
        await expectAlike('a change rolled back');

        if (resource === 'collabs') {
          const submitted = await server.post(`${base}/${newest}/submit.json`, { token: owner.token });
          expect(submitted.statusCode).toBe(303);
          await expectAlike('a transition');
          const submission = await server.post(`/test_helpers${base}/${newest}/submissions.json`, {
            token: TEST_HELPERS_KEY,
          });
          expect(submission.statusCode).toBe(201);
          await expectAlike("a submission counted on the collab's row");
        }

        const deleted = await server.delete(`${base}/${ids[10]}.json`, { token: owner.token });
        expect(deleted.statusCode).toBe(204);
        await expectAlike('deleted through the API');

        await server.sql(`delete from ${resource} where organization_id = ?`, [org.id]);
        await expectAlike('emptied in SQL');

        const again = await server.post(`${base}.json`, {
          token: owner.token,
          body: { [noun]: { name: 'After the list was empty', brief: 'B' } },
        });
        expect(again.statusCode).toBe(201);
        await expectAlike('created again after the count was removed');
      }
    } finally {
      await Promise.all([...keeping.slice(1), reference].map((app) => app.close()));
    }
  });

  it('stays whole under concurrent writes: each answer one list state, the last one the list', async () => {
    const owner = await server.createUser();
    const org = await organizationOf(owner);
    const base = `/organizations/${org.id}/collabs`;
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const created = await server.post(`${base}.json`, {
        token: owner.token,
        body: { collab: { name: `Collab ${i}`, brief: 'B' } },
      });
      ids.push(created.json().id);
    }
    const keeping = [server.app, await replica(16 * 1024 * 1024)];
    const reference = await replica(0);
    try {
      const writes: Array<Promise<number>> = [];
      for (let i = 0; i < 12; i++) {
        const id = ids[i] as string;
        const write =
          i % 3 === 0
            ? server.delete(`${base}/${id}.json`, { token: owner.token })
            : i % 3 === 1
              ? server.patch(`${base}/${id}.json`, {
                  token: owner.token,
                  body: { collab: { name: `Renamed ${i}` } },
                })
              : server.post(`${base}.json`, { token: owner.token, body: { collab: { name: `New ${i}` } } });
        writes.push(write.then((res) => res.statusCode));
      }
      const reads: Array<Promise<void>> = [];
      for (let i = 0; i < 24; i++) {
        const app = keeping[i % 2] as Replica;
        const page = 1 + (i % 2);
        reads.push(
          pageOf(app, `${base}.json?page=${page}`, owner.token).then((answer) => {
            expect(answer.status).toBe(200);
            const items = JSON.parse(answer.body) as Array<{ id: string; created_at: string }>;
            const total = Number(answer.headers['total-count']);
            // The items and the total are of one state of the list.
            expect(items).toHaveLength(Math.min(20, Math.max(0, total - 20 * (page - 1))));
            expect(new Set(items.map((item) => item.id)).size).toBe(items.length);
          }),
        );
      }
      await Promise.all(reads);
      // No write waits on another for ever or fails: the list's version is one more lock of the
      // owner's count, taken after the row's.
      expect(await Promise.all(writes)).toEqual(Array.from({ length: 12 }, (_, i) => [204, 200, 201][i % 3]));
      for (const page of [1, 2]) {
        const url = `${base}.json?page=${page}`;
        const expected = await pageOf(reference, url, owner.token);
        for (const app of keeping) expect(await pageOf(app, url, owner.token)).toEqual(expected);
      }
    } finally {
      await Promise.all([...keeping.slice(1), reference].map((app) => app.close()));
    }
  });

  it('is answered without reading its rows while its version stands, and never to a non-member', async () => {
    const owner = await server.createUser();
    const stranger = await server.createUser();
    const org = await organizationOf(owner);
    const url = `/organizations/${org.id}/collabs.json`;
    const created = await server.post(url, {
      token: owner.token,
      body: { collab: { name: 'Kept', brief: 'B' } },
    });
    expect(created.statusCode).toBe(201);
    const kept = await pageOf(server.app, url, owner.token);
    expect(JSON.parse(kept.body)).toMatchObject([{ name: 'Kept' }]);
    const reference = await replica(0);
    try {
      // A change made with the list's trigger off does not move its version (no operator should
      // do this): the kept page still answers, a replica that keeps none reads the row.
      await server.sql('alter table collabs disable trigger collabs_count');
      try {
        await server.sql(`update collabs set name = 'Behind its back' where id = ?`, [created.json().id]);
      } finally {
        await server.sql('alter table collabs enable trigger collabs_count');
      }
      expect(await pageOf(server.app, url, owner.token)).toEqual(kept);
      expect(JSON.parse((await pageOf(reference, url, owner.token)).body)).toMatchObject([
        { name: 'Behind its back' },
      ]);
      expect((await pageOf(server.app, url, stranger.token)).status).toBe(404);
    } finally {
      await reference.close();
    }
  });
});

describe('the page cache', () => {
  const page = (body: string, version = '1') => ({ version, body: Buffer.from(body) });

  it('holds at most its bytes, dropping the least recently used page first', () => {
    const body = 'x'.repeat(1_000);
    const cache = new PageCache(3 * (1_000 + 2 * 10));
    for (const key of ['a 1', 'b 1', 'c 1']) cache.set(key, page(body));
    expect(cache.bytes).toBeLessThanOrEqual(cache.maxBytes);
    expect(cache.get('a 1')).toEqual(page(body));
    cache.set('d 1', page(body));
    expect(cache.get('b 1')).toBeUndefined();
    expect(cache.get('a 1')).toBeDefined();
    cache.set('a 1', page('y', '2'));
    expect(cache.get('a 1')).toEqual(page('y', '2'));
    expect(cache.bytes).toBeLessThanOrEqual(cache.maxBytes);
  });

  it('keeps nothing larger than itself, and nothing at all at 0 bytes', () => {
    const small = new PageCache(100);
    small.set('a 1', page('x'.repeat(100)));
    expect(small.get('a 1')).toBeUndefined();
    expect(small.bytes).toBe(0);
    const none = new PageCache(0);
    expect(none.enabled).toBe(false);
    none.set('a 1', page('x'));
    expect(none.get('a 1')).toBeUndefined();
  });
});
