/**
 * Faults: the database goes away while the server runs. Requests meanwhile get `503` with
 * `Retry-After: 1` at once (never a 500, never a hang past the request timeout); on PostgreSQL the
 * server recovers by itself when the database is back, and SDK calls that were retrying complete.
 * PGlite is embedded in the server process: once closed, only a restart brings it back.
 *
 * "At once" and "never a hang" are asserted as what they mean, never as durations: which path
 * answered each `503` (the server's log says why: the database refused, the pool's connect
 * timeout, the request timeout; `/metrics` counts them by cause), and that every request got an
 * answer before the client's own timeout (support.ts, `CLIENT_TIMEOUT_MS`, twice the server's).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Marketplace, ServiceUnavailableError } from '@app/sdk';
import { PGlite } from '@electric-sql/pglite';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REQUEST_TIMEOUT_MS } from '../../src/app.js';
import { type Orm, openDatabase } from '../../src/db/database.js';
import { unavailableCounts } from '../metrics-text.js';
import {
  type Answer,
  createTestDatabase,
  createUser,
  type Instance,
  type LogEntry,
  listen,
  send,
  type TestDatabase,
  type TestUser,
} from './support.js';

/** The `pg` pool behind the ORM (its counts show connections checked out and never returned). */
function poolOf(orm: Orm): Promise<Pool> {
  return (orm.em.getConnection() as unknown as { getNativeClient(): Promise<Pool> }).getNativeClient();
}

const UNAVAILABLE = { error: 'Service temporarily unavailable' };

/**
 * Why the server answered `503`, from its warnings (plugins/error-handler.ts), one per `503`:
 * `refused` (the database turns connections away: answered at once), `pool timeout` (no pooled
 * connection within the pool's connect timeout, database.ts), `cut` (the session ended under a
 * statement), `closed` (PGlite), `request timeout` (the request timeout, app.ts), or the message.
 */
function whyUnavailable(logs: readonly LogEntry[]): string[] {
  return logs
    .filter((entry) => entry.msg === 'database unavailable' || entry.msg === 'request timed out')
    .map(({ msg, err }) => {
      const message = err?.message ?? '';
      if (msg === 'request timed out') return 'request timeout';
      if (message.includes('is not currently accepting connections')) return 'refused';
      if (message.includes('timeout exceeded when trying to connect')) return 'pool timeout';
      if (/terminat|connection error|Client was closed/i.test(message)) return 'cut';
      if (message.includes('PGlite is closed')) return 'closed';
      return message;
    });
}

/** The server's `503`s so far, by cause (`/metrics`). */
async function unavailableOf(server: Instance) {
  const metrics = await send(server.url, 'GET', '/metrics');
  expect(metrics.status).toBe(200);
  return unavailableCounts(metrics.text);
}

/** What was injected, printed at the end (docs/reliability.md quotes it). */
const faults = { outages: 0, sessionsKilled: 0, lockedTables: 0, pgliteClosed: 0, answered503: 0 };
afterAll(() => {
  console.log(`faults injected: ${JSON.stringify(faults)}`);
});

function expectUnavailable(answer: Answer, body: unknown = UNAVAILABLE) {
  expect(answer.status).toBe(503);
  expect(answer.headers.get('retry-after')).toBe('1');
  expect(answer.json()).toEqual(body);
  faults.answered503 += 1;
}

/** A mix of reads and writes of one user, as a client would send them. */
function trafficOf(base: string, alice: TestUser, orgId: string) {
  return [
    () => send(base, 'GET', '/me/access_tokens.json', { token: alice.token }),
    () => send(base, 'GET', `/organizations/${orgId}.json`, { token: alice.token }),
    () => send(base, 'GET', `/organizations/${orgId}/members.json`, { token: alice.token }),
    () =>
      send(base, 'PATCH', '/me/notification_settings.json', {
        token: alice.token,
        body: { push_notifications_enabled: false },
      }),
    () =>
      send(base, 'POST', '/me/access_tokens.json', {
        token: alice.token,
        body: { access_token: { description: 'during outage', permission: 'read' } },
      }),
  ];
}

describe('PostgreSQL goes away and comes back', () => {
  let db: TestDatabase;
  let orm: Orm;
  let server: Instance;
  let dataDir: string;
  let alice: TestUser;
  let orgId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'mkt-rel-faults-'));
    orm = await openDatabase({ url: db.url, dataDir });
    server = await listen(orm, { logs: true });
    alice = await createUser(orm);
    const created = await send(server.url, 'POST', '/organizations.json', {
      token: alice.token,
      body: { organization: { name: 'Acme' } },
    });
    orgId = created.json<{ id: string }>().id;
  });

  afterAll(async () => {
    await server?.close();
    await orm?.close(true);
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers every request of an outage with a quick 503 and recovers by itself, three times over', async () => {
    const tokensBefore = await db.sql('select id from access_tokens');
    for (let outage = 0; outage < 3; outage++) {
      expect((await send(server.url, 'GET', '/me/access_tokens.json', { token: alice.token })).status).toBe(
        200,
      );
      await db.stop();
      faults.outages += 1;
      server.logs.length = 0;
      const answers = await Promise.all(trafficOf(server.url, alice, orgId).map((request) => request()));
      for (const answer of answers) expectUnavailable(answer);
      // Refused connections fail at once: nothing waits for the pool's connect timeout, nor for the
      // request timeout.
      // (A pooled connection whose end the pool has not seen yet fails at once too: `cut`.)
      expect(whyUnavailable(server.logs)).toEqual(
        answers.map(() => expect.stringMatching(/^(refused|cut)$/)),
      );
      expectUnavailable(await send(server.url, 'GET', '/health'), { status: 'database unavailable' });

      // Back: the very next requests succeed, with no restart of the server.
      await db.start();
      const after = await Promise.all(trafficOf(server.url, alice, orgId).map((request) => request()));
      expect(after.map((a) => a.status)).toEqual([200, 200, 200, 200, 201]);
      expect((await send(server.url, 'GET', '/health')).json()).toEqual({ status: 'ok' });
    }
    // The POSTs answered 503 stored nothing; the three answered 201 did.
    expect(await db.sql('select id from access_tokens')).toHaveLength(tokensBefore.length + 3);
  });

  it('cuts the database mid-run under concurrent traffic: only 200/201 or 503, no acknowledged write lost', async () => {
    const requests = trafficOf(server.url, alice, orgId);
    const total = 300;
    const stopAt = 60;
    const startAt = 180;
    const answers: Answer[] = [];
    let issued = 0;
    let phase: Promise<void> = Promise.resolve();
    // Eight clients in a loop; the outage starts and ends at request counts, not at wall-clock times.
    const client = async () => {
      while (issued < total) {
        const n = issued++;
        if (n === stopAt)
          phase = db.stop().then(() => {
            faults.outages += 1;
          });
        if (n === startAt) phase = phase.then(() => db.start());
        answers.push(await (requests[n % requests.length] as () => Promise<Answer>)());
      }
    };
    const tokensBefore = (await db.sql('select id from access_tokens')).length;
    const unavailableBefore = await unavailableOf(server);
    server.logs.length = 0;
    await Promise.all(Array.from({ length: 8 }, client));
    await phase;

    const statuses = new Map<number, number>();
    for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
    expect([...statuses.keys()].every((s) => [200, 201, 503].includes(s))).toBe(true);
    expect(statuses.get(503)).toBeGreaterThan(0);
    for (const a of answers.filter((x) => x.status === 503)) expectUnavailable(a);
    // Every request was answered (none is NO_ANSWER, above), and none by the request timeout: each
    // 503 is the database's, at once or when its session was cut.
    expect(await unavailableOf(server)).toMatchObject({
      database: unavailableBefore.database + (statuses.get(503) ?? 0),
      timeout: 0,
    });
    expect(whyUnavailable(server.logs)).toEqual(
      answers.filter((a) => a.status === 503).map(() => expect.stringMatching(/^(refused|cut)$/)),
    );
    // Every token whose creation was acknowledged is stored (a 503 may or may not have committed).
    const created = answers.filter((a) => a.status === 201).length;
    const stored = (await db.sql('select id from access_tokens')).length - tokensBefore;
    expect(stored).toBeGreaterThanOrEqual(created);
    expect(stored).toBeLessThanOrEqual(created + (statuses.get(503) ?? 0));
    // The last requests ran after the outage, all successful.
    expect((await send(server.url, 'GET', '/me/access_tokens.json', { token: alice.token })).status).toBe(
      200,
    );
  });

  it('survives its connections being cut while the database stays up (a failover)', async () => {
    // Fill the pool with idle connections, then cut them all.
    await Promise.all(trafficOf(server.url, alice, orgId).map((request) => request()));
    const killed = await db.killSessions();
    faults.sessionsKilled += killed;
    expect(killed).toBeGreaterThan(0);
    // A pooled connection whose end the pool has not seen yet fails its request with a 503 (the
    // client retries); at most one per connection cut, and then every request succeeds.
    const answers: Answer[] = [];
    for (let i = 0; i < killed + 5; i++)
      answers.push(await send(server.url, 'GET', '/me/access_tokens.json', { token: alice.token }));
    for (const answer of answers.filter((a) => a.status !== 200)) expectUnavailable(answer);
    expect(answers.filter((a) => a.status === 503).length).toBeLessThanOrEqual(killed);
    expect(answers.slice(-5).map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const after = await Promise.all(trafficOf(server.url, alice, orgId).map((request) => request()));
    expect(after.map((a) => a.status)).toEqual([200, 200, 200, 200, 201]);
  });

  it('completes SDK calls that were retrying during the outage once the database is back', async () => {
    const attempts: { path: string; status: number }[] = [];
    const client = new Marketplace({
      token: alice.token,
      baseUrl: server.url,
      maxRetries: 5,
      random: () => 0,
      cache: false,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const url = new URL(input instanceof Request ? input.url : String(input));
        attempts.push({ path: url.pathname, status: response.status });
        return response;
      },
    });
    await db.stop();
    faults.outages += 1;
    const calls = Promise.all([
      client.organizations.retrieve(orgId as never),
      client.members.list(orgId as never),
      client.me.accessTokens.list(),
      client.me.notificationSettings.update({ push_notifications_enabled: true }),
    ]);
    // Every call has been refused at least once before the database comes back.
    await vi.waitFor(
      () => expect(new Set(attempts.filter((a) => a.status === 503).map((a) => a.path)).size).toBe(4),
      {
        timeout: 5_000,
        interval: 10,
      },
    );
    faults.answered503 += attempts.filter((a) => a.status === 503).length;
    await db.start();
    const [organization, members, tokens, settings] = await calls;
    expect(organization.id).toBe(orgId);
    expect(members.data).toHaveLength(1);
    expect(tokens.data.length).toBeGreaterThan(0);
    expect(settings.push_notifications_enabled).toBe(true);
    for (const path of new Set(attempts.map((a) => a.path))) {
      const statuses = attempts.filter((a) => a.path === path).map((a) => a.status);
      expect(statuses.at(-1)).toBe(200);
      expect(statuses.slice(0, -1).every((s) => s === 503)).toBe(true);
    }
  });

  it('gives back every pooled connection after the outages (none leaked: the pool can close)', async () => {
    const pool = await poolOf(orm);
    expect(pool.totalCount).toBe(pool.idleCount);
    expect(pool.waitingCount).toBe(0);
  });
});

describe('PostgreSQL accepts connections but does not answer', () => {
  let db: TestDatabase;
  let orm: Orm;
  let dataDir: string;
  let alice: TestUser;

  beforeAll(async () => {
    db = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'mkt-rel-locks-'));
    // A small pool, so that a burst exhausts it.
    orm = await openDatabase({ url: db.url, dataDir, poolSize: 2 });
    alice = await createUser(orm);
  });

  afterAll(async () => {
    await orm?.close(true);
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Every request authenticates against `access_tokens`: a lock on it stalls them all. */
  async function lockAccessTokens() {
    const holder = await db.connect();
    await holder.query('begin');
    await holder.query('lock table access_tokens in access exclusive mode');
    faults.lockedTables += 1;
    return async () => {
      await holder.query('rollback');
    };
  }

  it('answers 503 at the request timeout, then serves again once the database answers', async () => {
    const server = await listen(orm, { requestTimeout: 1_000, logs: true });
    try {
      const release = await lockAccessTokens();
      const answer = await send(server.url, 'GET', '/me/access_tokens.json', { token: alice.token });
      expectUnavailable(answer);
      // The request timeout answered it (not the pool's connect timeout: a connection was free).
      expect(whyUnavailable(server.logs)).toEqual(['request timeout']);
      expect(await unavailableOf(server)).toMatchObject({ timeout: 1, database: 0 });
      await release();
      expect((await send(server.url, 'GET', '/me/access_tokens.json', { token: alice.token })).status).toBe(
        200,
      );
    } finally {
      await server.close();
    }
  });

  it('answers a burst that exhausts the pool with 503s after the pool timeout, not a hang', async () => {
    const server = await listen(orm, { logs: true });
    try {
      const release = await lockAccessTokens();
      const answers: Answer[] = [];
      const burst = Promise.all(
        Array.from({ length: 20 }, async () => {
          const answer = await send(server.url, 'GET', '/me/access_tokens.json', { token: alice.token });
          answers.push(answer);
          return answer;
        }),
      );
      // Two requests hold the pool's two connections (stuck on the lock); the other 18 wait for
      // one and give up at the pool's connect timeout, while the lock is still held.
      await vi.waitFor(() => expect(answers).toHaveLength(18), { timeout: REQUEST_TIMEOUT_MS, interval: 20 });
      for (const answer of answers) expectUnavailable(answer);
      expect(whyUnavailable(server.logs)).toEqual(answers.map(() => 'pool timeout'));
      await release();
      // The two that held the connections complete once the lock is gone, within the request
      // timeout: no request was answered by it.
      const all = await burst;
      expect(all.filter((a) => a.status === 200)).toHaveLength(2);
      expect(await unavailableOf(server)).toMatchObject({ database: 18, timeout: 0 });
      expect((await send(server.url, 'GET', '/me/access_tokens.json', { token: alice.token })).status).toBe(
        200,
      );
    } finally {
      await server.close();
    }
  });
});

describe('PGlite is closed (embedded: it lives and dies with the server process)', () => {
  let dataDir: string;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mkt-rel-pglite-'));
  });
  afterAll(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Opens the PGlite data directory on disk and serves it, as `marketplace-server serve` does. */
  async function boot() {
    const pglite = await PGlite.create(join(dataDir, 'pglite'));
    const orm = await openDatabase({ url: undefined, dataDir, pglite });
    const instance = await listen(orm, { logs: true });
    return { pglite, orm, instance };
  }

  it('answers 503 while closed, does not come back by itself, and a restart serves the same data', async () => {
    let running = await boot();
    await running.orm.schema.create();
    const alice = await createUser(running.orm);
    expect(
      (await send(running.instance.url, 'GET', '/me/access_tokens.json', { token: alice.token })).status,
    ).toBe(200);

    await running.pglite.close();
    faults.pgliteClosed += 1;
    const answers = await Promise.all(
      trafficOf(running.instance.url, alice, 'unknown-org').map((request) => request()),
    );
    for (const answer of answers) expectUnavailable(answer);
    // Each at once, from the closed database: nothing waited for the request timeout.
    expect(whyUnavailable(running.instance.logs)).toEqual(answers.map(() => 'closed'));
    // An SDK that retries still gets 503s: nothing reopens an embedded database but a restart.
    const client = new Marketplace({
      token: alice.token,
      baseUrl: running.instance.url,
      maxRetries: 1,
      random: () => 0,
    });
    await expect(client.me.accessTokens.list()).rejects.toBeInstanceOf(ServiceUnavailableError);
    expectUnavailable(await send(running.instance.url, 'GET', '/health'), { status: 'database unavailable' });

    // The restart: the process's app and ORM closed, the data directory opened again.
    await running.instance.close();
    await running.orm.close(true).catch(() => {});
    running = await boot();
    try {
      const answer = await send(running.instance.url, 'GET', '/me/access_tokens.json', {
        token: alice.token,
      });
      expect(answer.status).toBe(200);
      expect(answer.json<{ id: string }[]>().map((t) => t.id)).toEqual([alice.tokenId]);
    } finally {
      await running.instance.close();
      await running.orm.close(true).catch(() => {});
      if (!running.pglite.closed) await running.pglite.close();
    }
  });
});
