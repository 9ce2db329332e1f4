/**
 * `Total-Count` is read from `row_counts` (db/pages.ts), kept by triggers in the
 * transactions that insert and delete rows, not counted on every page. These tests change the
 * rows every way the server and its operators do — the API, the test helpers, SQL typed by hand,
 * foreign-key cascades, transactions that roll back, all of it concurrently — and compare the
 * header with `count(*)` of the rows, and each page with the rows in the list's order.
 */
import { describe, expect, it } from 'vitest';
import { TEST_HELPERS_KEY, type TestUser, useTestServer } from './harness.js';
import { createOrganization } from './organizations.js';

const server = useTestServer();
const organizationOf = (owner: TestUser) => createOrganization(server, owner);

const totalOf = (res: { headers: Record<string, unknown> }) => Number(res.headers['total-count']);

const countOf = async (sql: string, params: unknown[]) =>
  (await server.sql<{ n: number }>(`select count(*)::int as n from ${sql}`, params))[0]?.n;

/** Inserts `n` copies of a row by hand (new ids, one second apart), as an operator's SQL would. */
async function copyRows(table: string, id: string, n: number) {
  const columns = (
    await server.sql<{ column_name: string }>(
      `select column_name from information_schema.columns where table_name = ? and column_name not in ('id', 'created_at')`,
      [table],
    )
  ).map((row) => `"${row.column_name}"`);
  await server.sql(
    `insert into ${table} (id, created_at, ${columns.join(', ')})
     select substr(md5(random()::text || g::text), 1, 16), created_at - g * interval '1 second', ${columns.join(', ')}
     from ${table}, generate_series(1, ?) g where id = ?`,
    [n, id],
  );
}

/** Inserts a row by hand in a transaction that then rolls back (a failed write). */
async function insertAndRollBack(table: string, id: string) {
  await expect(
    server.orm.em.fork().transactional(async (tem) => {
      await tem.execute(
        `insert into ${table} select (jsonb_populate_record(t, '{"id": "rolledback000000"}')).* from ${table} t where id = ?`,
        [id],
      );
      throw new Error('rolled back');
    }),
  ).rejects.toThrow('rolled back');
}

describe('Total-Count of a list kept with its rows', () => {
  it("is count(*) of an organization's collabs and campaigns after API writes, SQL, rollbacks and deletes", async () => {
    const owner = await server.createUser();
    const org = await organizationOf(owner);
    const other = await organizationOf(owner);
    for (const resource of ['collabs', 'campaigns']) {
      const url = `/organizations/${org.id}/${resource}.json`;
      const ids: string[] = [];
      const body = { [resource.slice(0, -1)]: { name: 'Draft' } };
      for (let i = 0; i < 3; i++) {
        const created = await server.post(url, { token: owner.token, body });
        expect(created.statusCode).toBe(201);
        ids.push(created.json().id);
      }
      await server.post(`/organizations/${other.id}/${resource}.json`, { token: owner.token, body });
      await copyRows(resource, ids[0] as string, 40);
      await insertAndRollBack(resource, ids[0] as string);
      expect(
        (await server.delete(`/organizations/${org.id}/${resource}/${ids[1]}.json`, { token: owner.token }))
          .statusCode,
      ).toBe(204);
      await server.sql(`delete from ${resource} where id = ?`, [ids[2]]);

      const stored = await countOf(`${resource} where organization_id = ?`, [org.id]);
      expect(stored).toBe(41);
      for (const page of [1, 3, 9]) {
        const res = await server.get(`${url}?page=${page}`, { token: owner.token });
        expect(res.statusCode).toBe(200);
        expect(totalOf(res)).toBe(stored);
        expect(res.headers['total-pages']).toBe('3');
      }
    }
  });

  it("is count(*) of an organization's members, and nothing is left of it once the organization is gone", async () => {
    const owner = await server.createUser();
    const org = await organizationOf(owner);
    const members = [];
    for (let i = 0; i < 22; i++) {
      const user = await server.createUser();
      const res = await server.post(`/test_helpers/organizations/${org.id}/members.json`, {
        token: TEST_HELPERS_KEY,
        body: { membership: { user_id: user.user.id, role: i % 2 ? 'admin' : 'member' } },
      });
      expect(res.statusCode).toBe(201);
      members.push(res.json() as { id: string });
    }
    const removed = await server.delete(`/organizations/${org.id}/members/${members[0]?.id}.json`, {
      token: owner.token,
    });
    expect(removed.statusCode).toBe(204);
    const stored = await countOf('memberships where organization_id = ?', [org.id]);
    expect(stored).toBe(22);
    const second = await server.get(`/organizations/${org.id}/members.json?page=2`, { token: owner.token });
    expect(totalOf(second)).toBe(stored);
    expect(second.json()).toHaveLength(2);

    // The organization's rows go by cascade; so does its count.
    await server.sql('delete from organizations where id = ?', [org.id]);
    expect(await server.sql('select * from row_counts where owner_id = ?', [org.id])).toEqual([]);
  });

  it('is count(*) of the listed notifications (submission-message kinds are neither listed nor counted)', async () => {
    const { token, user } = await server.createUser();
    const notify = (type: string) =>
      server.post(`/test_helpers/users/${user.id}/notifications.json`, {
        token: TEST_HELPERS_KEY,
        body: { notification: { type, params: {}, record_type: 'X', record_id: 'x' } },
      });
    for (let i = 0; i < 25; i++) await notify(i % 5 === 0 ? 'Submission::MessageReceivedNotifier' : 'Kind');
    const [one] = await server.sql<{ id: string }>(
      "select id from notifications where type = 'Kind' order by id limit 1",
    );
    await server.sql('delete from notifications where id = ?', [one?.id]);
    await server.sql(
      "delete from notifications where type like 'Submission::Message%' and id in (select id from notifications where type like 'Submission::Message%' limit 2)",
    );
    const listed = "notifications where recipient_id = ? and type not like 'Submission::Message%'";
    expect(await countOf(listed, [user.id])).toBe(19);
    const res = await server.get('/me/notifications.json', { token });
    expect(totalOf(res)).toBe(19);
    expect(res.json()).toHaveLength(19);
  });
});

describe('pages read through the index', () => {
  it('are the rows in the list order (created_at desc, id desc), ties and deep pages included', async () => {
    const owner = await server.createUser();
    const org = await organizationOf(owner);
    const first = (await server.post(`/organizations/${org.id}/collabs.json`, { token: owner.token })).json();
    await copyRows('collabs', first.id, 64);
    // Ties: rows sharing one time are ordered by id, descending.
    await server.sql(
      `update collabs set created_at = '2025-01-01T00:00:00Z' where id in (select id from collabs order by id limit 30)`,
    );
    // Pages past the middle are read from the other end of the index: every size around a page.
    for (const size of [65, 60, 50, 41, 40, 39, 21, 1]) {
      await server.sql(
        'delete from collabs where id in (select id from collabs order by md5(id) limit (select count(*) - ? from collabs))',
        [size],
      );
      const stored = await server.sql<{ id: string }>(
        'select id from collabs where organization_id = ? order by created_at desc, id desc',
        [org.id],
      );
      const pages = Math.max(1, Math.ceil(size / 20));
      const listed: string[] = [];
      for (let page = 1; page <= pages + 1; page++) {
        const res = await server.get(`/organizations/${org.id}/collabs.json?page=${page}`, {
          token: owner.token,
        });
        expect(res.headers).toMatchObject({ 'total-count': String(size), 'total-pages': String(pages) });
        listed.push(...res.json().map((c: { id: string }) => c.id));
      }
      expect(listed).toEqual(stored.map((row) => row.id));
    }
  });

  it('are the notifications in the list order on every page, the hidden kinds left out', async () => {
    const { token, user } = await server.createUser();
    for (let i = 0; i < 47; i++)
      await server.post(`/test_helpers/users/${user.id}/notifications.json`, {
        token: TEST_HELPERS_KEY,
        body: {
          notification: {
            type: i % 4 === 0 ? 'Submission::MessageReceivedNotifier' : 'Kind',
            params: {},
            record_type: 'X',
            record_id: String(i),
          },
        },
      });
    await server.sql(
      "update notifications set created_at = '2025-01-01T00:00:00Z' where id in (select id from notifications order by id limit 20)",
    );
    const stored = await server.sql<{ id: string }>(
      "select id from notifications where type not like 'Submission::Message%' order by created_at desc, id desc",
    );
    expect(stored).toHaveLength(35);
    const pages = await Promise.all(
      [1, 2, 3].map((page) => server.get(`/me/notifications.json?page=${page}`, { token })),
    );
    for (const res of pages) expect(res.headers).toMatchObject({ 'total-count': '35', 'total-pages': '2' });
    expect(pages.flatMap((res) => res.json().map((n: { id: string }) => n.id))).toEqual(
      stored.map((row) => row.id),
    );
  });

  it('lists members admins first, then oldest first, on every page', async () => {
    const owner = await server.createUser();
    const org = await organizationOf(owner);
    for (let i = 0; i < 24; i++) {
      const user = await server.createUser();
      await server.post(`/test_helpers/organizations/${org.id}/members.json`, {
        token: TEST_HELPERS_KEY,
        body: { membership: { user_id: user.user.id, role: i % 3 ? 'member' : 'admin' } },
      });
    }
    const stored = await server.sql<{ id: string }>(
      'select id from memberships where organization_id = ? order by role, created_at, id',
      [org.id],
    );
    const pages = await Promise.all(
      [1, 2].map((page) =>
        server.get(`/organizations/${org.id}/members.json?page=${page}`, { token: owner.token }),
      ),
    );
    expect(pages.flatMap((res) => res.json().map((m: { id: string }) => m.id))).toEqual(
      stored.map((row) => row.id),
    );
  });
});

describe('Total-Count under concurrent writes', () => {
  it('agrees with the rows of the same page while collabs are created, deleted and rolled back, and with count(*) after', async () => {
    const owner = await server.createUser();
    const org = await organizationOf(owner);
    const url = `/organizations/${org.id}/collabs.json`;
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await server.post(url, { token: owner.token })).json().id);

    let writing = true;
    const disagreements: string[] = [];
    // Each answer is one snapshot: page 1 holds min(20, total) rows, page 2 the rest up to 20.
    const reader = async () => {
      while (writing) {
        const [one, two] = await Promise.all([
          server.get(url, { token: owner.token }),
          server.get(`${url}?page=2`, { token: owner.token }),
        ]);
        const checks: Array<[typeof one, number]> = [
          [one, Math.min(20, totalOf(one))],
          [two, Math.max(0, Math.min(20, totalOf(two) - 20))],
        ];
        for (const [res, expected] of checks)
          if (res.json().length !== expected)
            disagreements.push(`${res.json().length} rows with Total-Count ${totalOf(res)}`);
      }
    };
    const writes = [
      ...Array.from({ length: 16 }, () => () => server.post(url, { token: owner.token })),
      ...ids
        .slice(0, 8)
        .map(
          (id) => () => server.delete(`/organizations/${org.id}/collabs/${id}.json`, { token: owner.token }),
        ),
      ...Array.from({ length: 4 }, () => () => insertAndRollBack('collabs', ids[11] as string)),
      () => copyRows('collabs', ids[10] as string, 5),
    ];
    const readers = [reader(), reader()];
    await Promise.all(writes.map((write) => write()));
    writing = false;
    await Promise.all(readers);

    expect(disagreements).toEqual([]);
    const stored = await countOf('collabs where organization_id = ?', [org.id]);
    expect(stored).toBe(12 + 16 - 8 + 5);
    expect(totalOf(await server.get(`${url}?page=2`, { token: owner.token }))).toBe(stored);
  });

  it('agrees with count(*) after concurrent join requests (each notifies every admin) and member changes', async () => {
    const owner = await server.createUser();
    const admin = await server.createUser();
    const org = await organizationOf(owner);
    await server.post(`/test_helpers/organizations/${org.id}/members.json`, {
      token: TEST_HELPERS_KEY,
      body: { membership: { user_id: admin.user.id, role: 'admin' } },
    });
    const joiners = await Promise.all(Array.from({ length: 10 }, () => server.createUser()));
    await Promise.all([
      ...joiners.map((joiner) =>
        server.post(`/test_helpers/organizations/${org.id}/join_requests.json`, {
          token: TEST_HELPERS_KEY,
          body: { join_request: { user_id: joiner.user.id } },
        }),
      ),
      ...joiners.map((joiner, i) =>
        server.post(`/test_helpers/organizations/${org.id}/members.json`, {
          token: TEST_HELPERS_KEY,
          body: { membership: { user_id: joiner.user.id, role: i % 2 ? 'admin' : 'member' } },
        }),
      ),
      ...joiners.map((joiner) =>
        server.post(`/test_helpers/users/${owner.user.id}/notifications.json`, {
          token: TEST_HELPERS_KEY,
          body: {
            notification: {
              type: 'Submission::MessageReceivedNotifier',
              params: {},
              record_type: 'X',
              record_id: joiner.user.id,
            },
          },
        }),
      ),
    ]);
    for (const user of [owner, admin]) {
      const listed = await countOf(
        "notifications where recipient_id = ? and type not like 'Submission::Message%'",
        [user.user.id],
      );
      expect(totalOf(await server.get('/me/notifications.json', { token: user.token }))).toBe(listed);
    }
    const members = await countOf('memberships where organization_id = ?', [org.id]);
    expect(totalOf(await server.get(`/organizations/${org.id}/members.json`, { token: owner.token }))).toBe(
      members,
    );
  });
});
