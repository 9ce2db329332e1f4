/**
 * Behind PgBouncer, its own errors: every one of them has SQLSTATE `08P01` (PgBouncer 1.18), among
 * them "server login has been failing, try again later (server_login_retry)" while PostgreSQL
 * behind it is down, and "no more connections allowed (max_client_conn)" at its client limit.
 * Each means the database cannot be reached right now: requests answer `503` with `Retry-After`,
 * and `GET /ready` `503 {"status":"database unavailable"}`, as for PostgreSQL itself being down
 * (database-down.test.ts). Before, both were `500`s, `/ready`'s too. PostgreSQL's own `08P01`
 * (protocol_violation: a malformed message from the driver, which no retry mends) stays a `500`.
 *
 * The pooler is a fake that answers every connection with PgBouncer's error (test/fixtures), so
 * the test needs neither PgBouncer nor PostgreSQL; the reliability suite runs a real PgBouncer
 * (test/reliability/pooler.reliability.ts). The database check is off (as in every test server):
 * these are the answers of the seconds before it notices, and of a check that still passes (a
 * PgBouncer at its client limit answers the check's connection, opened before).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { type Orm, openDatabase } from '../src/db/database.js';
import { loggerOptions } from '../src/http/logging.js';
import { generateToken } from '../src/modules/access-tokens/token.js';
import { type Answerer, startRefusingPostgres } from './fixtures/fake-postgres.js';
import { TEST_HELPERS_KEY } from './harness.js';
import { testConfig } from './test-config.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface LogLine {
  level: number;
  msg: string;
  err?: { code?: string; message?: string };
}

/**
 * A server whose `DATABASE_URL` leads to a pooler (or a PostgreSQL) that refuses with `code`, and
 * the lines of its log.
 */
async function serverRefusedWith(
  code: string,
  message: string,
  from: Answerer,
): Promise<{ app: FastifyInstance; logs: LogLine[] }> {
  const logs: LogLine[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) logs.push(JSON.parse(line));
      done();
    },
  });
  const refusing = await startRefusingPostgres(code, message, from);
  cleanups.push(() => refusing.close());
  const dir = mkdtempSync(join(tmpdir(), 'mkt-pooler-errors-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const url = `postgres://app@127.0.0.1:${refusing.port}/marketplace`;
  const orm: Orm = await openDatabase({ url, dataDir: dir, poolSize: 2 });
  cleanups.push(() => orm.close(true));
  const app = await buildApp({
    config: testConfig(dir, TEST_HELPERS_KEY, { databaseUrl: url }),
    orm,
    logger: { ...loggerOptions('info'), stream },
    overload: { maxEventLoopDelay: 0 },
  });
  cleanups.push(() => app.close());
  return { app, logs };
}

const authorization = `Bearer ${generateToken()}`;

describe("behind PgBouncer: PgBouncer's own errors (08P01)", () => {
  for (const message of [
    'server login has been failing, try again later (server_login_retry)',
    'no more connections allowed (max_client_conn)',
  ])
    it(`"${message}": every request 503 with Retry-After, /ready 503 "database unavailable"`, async () => {
      const { app, logs } = await serverRefusedWith('08P01', message, 'pgbouncer');
      for (const res of [
        await app.inject({ url: '/me/access_tokens.json', headers: { authorization } }),
        await app.inject({
          method: 'POST',
          url: '/organizations.json',
          headers: { authorization, 'content-type': 'application/json' },
          payload: JSON.stringify({ organization: { name: 'Acme' } }),
        }),
      ]) {
        expect(res.statusCode).toBe(503);
        expect(res.headers['retry-after']).toBe('1');
        expect(res.json()).toEqual({ error: 'Service temporarily unavailable' });
      }
      for (const url of ['/ready', '/health']) {
        const res = await app.inject(url);
        expect(res.statusCode).toBe(503);
        expect(res.headers['retry-after']).toBe('1');
        expect(res.json()).toEqual({ status: 'database unavailable' });
      }
      // Logged as an outage (a warning with PgBouncer's words), not as an unhandled error.
      const errors = logs.filter((line) => line.level >= 50);
      expect(errors).toEqual([]);
      const outages = logs.filter((line) => line.msg === 'database unavailable');
      expect(outages).toHaveLength(2);
      for (const line of outages) expect(line.err).toMatchObject({ code: '08P01', message });
    });

  it("PostgreSQL's own protocol violation is a 500 (a driver's bug), and /ready still says 503", async () => {
    const { app, logs } = await serverRefusedWith('08P01', 'invalid length of startup packet', 'postgres');
    const res = await app.inject({ url: '/me/access_tokens.json', headers: { authorization } });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: 'Internal server error' });
    // A readiness probe says whether to send traffic: not while the database refuses, whatever it says.
    const ready = await app.inject('/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.headers['retry-after']).toBe('1');
    expect(ready.json()).toEqual({ status: 'database unavailable' });
    // Both failures are in the log as errors, the probe's too: the 503 hides no bug.
    expect(logs.filter((line) => line.level >= 50).map((line) => [line.msg, line.err?.code])).toEqual([
      ['unhandled error', '08P01'],
      ['probe: the database question failed', '08P01'],
    ]);
  });
});
