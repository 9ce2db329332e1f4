/**
 * The overload protection's database check (plugins/pressure.ts, db/probe.ts):
 * while the last check found the database down, requests that need it get the documented `503` at
 * once, counted with cause `database`, and the server recovers by itself when the database is
 * back. Tests wait for checks through `nextDatabaseCheck()`, never for a time.
 */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DatabaseProbe } from '../src/db/probe.js';
import { registerOverloadProtection } from '../src/plugins/availability.js';
import { useTestServer } from './harness.js';

const UNAVAILABLE = { error: 'Service temporarily unavailable' };

function databaseUnavailableCount(metrics: string): number {
  const match = /^http_unavailable_responses_total\{cause="database"\} (\d+)$/m.exec(metrics);
  return Number(match?.[1] ?? Number.NaN);
}

describe('the database check on a real database', () => {
  const server = useTestServer({ databaseCheckIntervalMs: 20 });
  let token: string;

  it('sends nothing through the ORM: the statements of requests are all there is', async () => {
    const { token } = await server.createUser();
    server.queries.length = 0;
    expect(await server.app.nextDatabaseCheck()).toBe(true);
    expect(await server.app.nextDatabaseCheck()).toBe(true);
    expect(server.queries).toEqual([]);
    expect((await server.get('/me/access_tokens.json', { token })).statusCode).toBe(200);
  });

  it('once the database is down, answers 503 at once without asking it, counted as cause database', async () => {
    // Data made before the stop stays: tests are no longer emptied after it.
    ({ token } = await server.createUser());
    const before = databaseUnavailableCount((await server.get('/metrics')).body);
    await server.stopDatabase();
    while (await server.app.nextDatabaseCheck()) {}
    server.queries.length = 0;
    for (const res of [
      await server.get('/me/access_tokens.json', { token }),
      await server.post('/me/access_tokens.json', {
        token,
        body: { access_token: { description: 'x', permission: 'read' } },
      }),
    ]) {
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.json()).toEqual(UNAVAILABLE);
    }
    for (const path of ['/health', '/ready']) {
      const res = await server.get(path);
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.json()).toEqual({ status: 'database unavailable' });
    }
    expect(server.queries).toEqual([]);
    // What needs no database still answers, /metrics among it.
    expect((await server.get('/openapi.json')).statusCode).toBe(200);
    const metrics = await server.get('/metrics');
    expect(metrics.statusCode).toBe(200);
    // Each of the four 503s, `/ready`'s too (it was counted under no cause of its own).
    expect(databaseUnavailableCount(metrics.body)).toBe(before + 4);
  });

  // Only a real database can come back: a closed PGlite stays closed. This test is defined in the
  // PostgreSQL run (.ci/run) only; the fake probe below proves the recovery path on both.
  if (inject('database').kind === 'postgres')
    it('recovers by itself once the database is back (PostgreSQL: a closed PGlite stays closed)', async () => {
      await server.startDatabase();
      while (!(await server.app.nextDatabaseCheck())) {}
      expect((await server.get('/me/access_tokens.json', { token })).statusCode).toBe(200);
      expect((await server.get('/health')).statusCode).toBe(200);
      // Not `/ready`: it would go on to ask for migrations, and the test databases' schema is
      // made from the entities (test/global-setup.ts), without the migrations' record.
    });
});

describe('the database check, with a database that comes and goes', () => {
  const app = Fastify({ logger: false });
  let down = false;
  const probe: DatabaseProbe = {
    ping: async () => {
      if (down)
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    },
    close: async () => {},
  };

  beforeAll(async () => {
    await registerOverloadProtection(app, { maxEventLoopDelay: 0 }, { probe, interval: 10 });
    app.get('/api', { config: { needsDatabase: true } }, async () => ({ ok: true }));
    app.get('/plain', async () => ({ ok: true }));
    await app.ready();
  });
  afterAll(() => app.close());

  it('turns away the routes that need the database while it is down, and serves them again after', async () => {
    expect((await app.inject('/api')).statusCode).toBe(200);
    down = true;
    // A check already under way may still find it up: wait for one that finds it down.
    while (await app.nextDatabaseCheck()) {}
    const refused = await app.inject('/api');
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toEqual(UNAVAILABLE);
    expect((await app.inject('/plain')).statusCode).toBe(200);
    down = false;
    while (!(await app.nextDatabaseCheck())) {}
    expect((await app.inject('/api')).statusCode).toBe(200);
  });
});
