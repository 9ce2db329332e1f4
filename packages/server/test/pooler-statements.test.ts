/**
 * Behind a pooler in transaction mode that the server was not told of (no
 * `MARKETPLACE_DATABASE_POOLER=transaction`): its named statements meet server connections whose
 * session lacks them (`prepared statement "caller" does not exist`, 26000) or already has them
 * from another client (`… already exists`, 42P05). Before, every such request was a `500` while
 * `/ready` said 200; now the first such error switches the server's pool to unnamed statements
 * for good (what the setting does), with one warning that names the setting, and the request that
 * met it is answered as if nothing had happened: the statement is run again, unnamed (a failed
 * Parse or Bind runs nothing, and the statement is alone in its implicit transaction).
 *
 * PostgreSQL only (PGlite has one session, and its statements are its own): vitest.shared.ts's
 * `postgresOnlyFiles`. A session that
 * disagrees with the driver is made here as the pooler makes it, on the pool's one connection:
 * `deallocate all` behind the driver's back (26000), or a `prepare` of the statement's name
 * before the driver's first use (42P05). test/reliability/pooler.reliability.ts runs the same
 * behind a real PgBouncer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/db/database.js';
import { loggerOptions } from '../src/http/logging.js';
import { useTestServer } from './harness.js';

const server = useTestServer();

interface LogLine {
  level: number;
  msg: string;
  hint?: string;
  err?: { code?: string; message?: string };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A server on a pool of its own with one connection (so the test knows which session the next
 * statement meets), on the test's database, without the pooler setting; its log lines; and a way
 * to run SQL on that connection's session behind the driver's back.
 */
async function serverOnOneConnection() {
  const logs: LogLine[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) logs.push(JSON.parse(line));
      done();
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'mkt-pooler-statements-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const orm = await openDatabase({ url: server.orm.config.get('clientUrl'), dataDir: dir, poolSize: 1 });
  cleanups.push(() => orm.close(true));
  const app: FastifyInstance = await buildApp({
    config: { ...server.config, databasePooler: 'none' },
    orm,
    logger: { ...loggerOptions('info'), stream },
    overload: { maxEventLoopDelay: 0 },
  });
  cleanups.push(() => app.close());
  const pool = (await orm.em.getConnection().getNativeClient()) as pg.Pool;
  /** SQL on the pool's connection, as another client of the pooler would leave its session. */
  const onTheSession = async (sql: string) => {
    const client = await pool.connect();
    try {
      return (await client.query<Record<string, unknown>>(sql)).rows;
    } finally {
      client.release();
    }
  };
  /** The pool's connection closed (`release(true)`): the next statement opens a new one. */
  const dropTheConnection = async () => (await pool.connect()).release(true);
  return { app, logs, onTheSession, dropTheConnection };
}

async function organizationOf(token: string) {
  const res = await server.post('/organizations.json', { token, body: { organization: { name: 'Acme' } } });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string; name: string };
}

const get = (app: FastifyInstance, url: string, token: string) =>
  app.inject({ url, headers: { authorization: `Bearer ${token}` } });

/** The one warning of the switch: it says what happened and which setting to make. */
function expectOneSwitchWarning(logs: LogLine[], code: string) {
  expect(logs.filter((line) => line.level >= 50)).toEqual([]);
  const warnings = logs.filter((line) => line.level === 40);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]?.msg).toMatch(/unnamed statements from now on/);
  expect(warnings[0]?.hint).toMatch(/Set MARKETPLACE_DATABASE_POOLER=transaction/);
  expect(warnings[0]?.err?.code).toBe(code);
}

describe('behind a pooler in transaction mode, without MARKETPLACE_DATABASE_POOLER', () => {
  it('"prepared statement … does not exist" (26000): the request is answered, the server goes unnamed for good', async () => {
    const { token } = await server.createUser();
    const org = await organizationOf(token);
    const { app, logs, onTheSession } = await serverOnOneConnection();
    const url = `/organizations/${org.id}.json`;
    const first = await get(app, url, token);
    expect(first.statusCode).toBe(200);
    expect((await onTheSession('select name from pg_prepared_statements')).length).toBeGreaterThan(0);

    // The pooler hands the connection a session without the statements the driver prepared.
    await onTheSession('deallocate all');
    const res = await get(app, url, token);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(first.json());
    expectOneSwitchWarning(logs, '26000');

    // From then on nothing is prepared by name: the session keeps none, and no other warning.
    for (const path of [url, '/me/access_tokens.json', `/organizations/${org.id}/collabs.json`])
      expect((await get(app, path, token)).statusCode).toBe(200);
    expect(await onTheSession('select name from pg_prepared_statements')).toEqual([]);
    expect(logs.filter((line) => line.level >= 40)).toHaveLength(1);
  });

  it('"prepared statement … already exists" (42P05): the request is answered, the server goes unnamed for good', async () => {
    const { token } = await server.createUser();
    const { app, logs, onTheSession } = await serverOnOneConnection();
    // Another client of the pooler prepared the caller's statement (db: caller.ts) on the session.
    await onTheSession('prepare caller as select 1');
    const res = await get(app, '/me/access_tokens.json', token);
    expect(res.statusCode).toBe(200);
    // The user's one token, its use recorded (the touch ran too).
    expect(res.json()).toEqual([
      expect.objectContaining({ permission: 'write', last_used_at: expect.any(String) }),
    ]);
    expectOneSwitchWarning(logs, '42P05');

    await onTheSession('deallocate all');
    expect((await get(app, '/me/access_tokens.json', token)).statusCode).toBe(200);
    expect(await onTheSession('select name from pg_prepared_statements')).toEqual([]);
  });

  it("after the switch, a new connection gets no planning SET, which would stay for the pooler's other clients", async () => {
    const { token } = await server.createUser();
    const { app, onTheSession, dropTheConnection } = await serverOnOneConnection();
    const planning = "select setting, source from pg_settings where name = 'plan_cache_mode'";
    expect((await get(app, '/me/access_tokens.json', token)).statusCode).toBe(200);
    // Until it knows of the pooler, a new connection is set up for generic plans (db/database.ts).
    expect(await onTheSession(planning)).toEqual([{ setting: 'force_generic_plan', source: 'session' }]);
    await onTheSession('deallocate all');
    expect((await get(app, '/me/access_tokens.json', token)).statusCode).toBe(200);

    // Behind the pooler, the pool's next connection meets another server connection, one that
    // the pooler's other clients share: nothing is set on it any more.
    await dropTheConnection();
    expect((await get(app, '/me/access_tokens.json', token)).statusCode).toBe(200);
    expect(await onTheSession(planning)).toEqual([expect.objectContaining({ source: 'default' })]);
  });
});
