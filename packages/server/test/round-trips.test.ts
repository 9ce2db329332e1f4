/**
 * Database round trips of an authenticated read: the token, its user, the membership in the
 * organization of the URL, the `last_used_at` touch and, for the hot reads (organization, collab
 * and campaign shows and lists), the resource itself, all in one statement. Counted with the ORM's
 * query log, which the prepared statements report to as well (db/statements.ts), not timed.
 */
import { describe, expect, inject, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { useTestServer } from './harness.js';

const server = useTestServer();

// `pg` warns (once per process) when a statement is sent on a connection still running another:
// collected from the start of the file, before any connection is opened.
const overlapping: string[] = [];
process.on('warning', (warning) => {
  if (/already executing a query/.test(warning.message)) overlapping.push(warning.message);
});

async function organizationWithCollab() {
  const { token } = await server.createUser();
  const org = (
    await server.post('/organizations.json', { token, body: { organization: { name: 'Acme' } } })
  ).json();
  const collab = (await server.post(`/organizations/${org.id}/collabs.json`, { token })).json();
  return { token, org, collab };
}

async function statementsOf(request: () => Promise<{ statusCode: number }>, status: number) {
  server.queries.length = 0;
  const res = await request();
  expect(res.statusCode).toBe(status);
  return [...server.queries];
}

describe('round trips of an authenticated show', () => {
  it('is one for an organization-scoped show (token, membership and the resource together)', async () => {
    const { token, org, collab } = await organizationWithCollab();
    const url = `/organizations/${org.id}/collabs/${collab.id}.json`;
    expect(await statementsOf(() => server.get(url, { token }), 200)).toHaveLength(1);
    expect(
      await statementsOf(() => server.get(`/organizations/${org.id}.json`, { token }), 200),
    ).toHaveLength(1);
  });

  it('is one for a page of a list with its total, past the last page too (the total is kept, not counted)', async () => {
    const { token, org } = await organizationWithCollab();
    for (const resource of ['collabs', 'campaigns']) {
      const url = `/organizations/${org.id}/${resource}.json`;
      if (resource === 'campaigns') await server.post(url, { token });
      const first = await statementsOf(() => server.get(url, { token }), 200);
      expect(first).toHaveLength(1);
      const past = await statementsOf(() => server.get(`${url}?page=3`, { token }), 200);
      expect(past).toHaveLength(1);
    }
  });

  it('is one for a 304', async () => {
    const { token, org } = await organizationWithCollab();
    const url = `/organizations/${org.id}.json`;
    const etag = (await server.get(url, { token })).headers.etag as string;
    const statements = await statementsOf(
      () => server.get(url, { token, headers: { 'if-none-match': etag } }),
      304,
    );
    expect(statements).toHaveLength(1);
  });

  it('is one for a non-member (404 from the token statement alone)', async () => {
    const { org } = await organizationWithCollab();
    const stranger = await server.createUser();
    await server.get('/organizations.json', { token: stranger.token }); // its first use: touched
    expect(
      await statementsOf(() => server.get(`/organizations/${org.id}.json`, { token: stranger.token }), 404),
    ).toHaveLength(1);
  });

  it("adds the token's last_used_at touch as a second statement only when it is due (first use, then once a minute)", async () => {
    const { org } = await organizationWithCollab();
    const stranger = await server.createUser();
    const url = `/organizations/${org.id}.json`;
    const first = await statementsOf(() => server.get(url, { token: stranger.token }), 404);
    expect(first).toHaveLength(2);
    expect(first[1]).toMatch(/^update access_tokens set last_used_at/);
    expect(await statementsOf(() => server.get(url, { token: stranger.token }), 404)).toHaveLength(1);
  });

  it('is at most two for a user-scoped show', async () => {
    const { token } = await server.createUser();
    await server.get('/organizations.json', { token }); // its first use: touched
    expect(
      (await statementsOf(() => server.get('/me/notification_settings.json', { token }), 200)).length,
    ).toBeLessThanOrEqual(2);
  });
});

describe('planning of the hot statements', () => {
  it('happens once per connection: the generic plan, not one plan per request', async () => {
    const { token, org, collab } = await organizationWithCollab();
    for (let i = 0; i < 8; i++)
      for (const url of [
        `/organizations/${org.id}.json`,
        `/organizations/${org.id}/collabs.json`,
        `/organizations/${org.id}/collabs/${collab.id}.json`,
      ])
        expect((await server.get(url, { token })).statusCode).toBe(200);
    // Every connection of the server's pool (PostgreSQL: set when it opens; PGlite: its session).
    expect(await server.sql("select current_setting('plan_cache_mode') as mode")).toEqual([
      { mode: 'force_generic_plan' },
    ]);
    // PGlite has one session, so its prepared statements are the ones the requests ran.
    if (inject('database').kind === 'pglite') {
      const plans = await server.sql<{ name: string; generic_plans: number; custom_plans: number }>(
        `select name, generic_plans::int, custom_plans::int from pg_prepared_statements
         where name in ('caller+organizations.retrieve', 'caller+collabs.list', 'caller+collabs.retrieve')`,
      );
      expect(plans).toHaveLength(3);
      for (const plan of plans) {
        expect(plan.custom_plans).toBe(0);
        expect(plan.generic_plans).toBeGreaterThanOrEqual(8);
      }
    }
  });

  // A pool stands before PostgreSQL only: defined in the PostgreSQL run (.ci/run).
  if (inject('database').kind === 'postgres')
    it('is set before a new connection is handed out: no statement waits behind it on the connection', async () => {
      const url = server.orm.config.get('clientUrl') as string;
      const fresh = await openDatabase({ url, dataDir: server.config.dataDir });
      try {
        const pool = (await fresh.em.getConnection().getNativeClient()) as unknown as {
          query(text: string): Promise<{ rows: Array<{ mode: string }> }>;
        };
        const { rows } = await pool.query("select current_setting('plan_cache_mode') as mode");
        expect(rows).toEqual([{ mode: 'force_generic_plan' }]);
        expect(overlapping).toEqual([]);
      } finally {
        await fresh.close(true);
      }
    });

  // A pooler stands before PostgreSQL only: defined in the PostgreSQL run (.ci/run).
  if (inject('database').kind === 'postgres')
    it('makes no session setting behind a pooler in transaction mode (its sessions are shared)', async () => {
      const url = server.orm.config.get('clientUrl') as string;
      const pooled = await openDatabase({ url, dataDir: server.config.dataDir, pooler: 'transaction' });
      try {
        expect(await pooled.em.fork().execute("select current_setting('plan_cache_mode') as mode")).toEqual([
          { mode: 'auto' },
        ]);
      } finally {
        await pooled.close(true);
      }
    });
});
