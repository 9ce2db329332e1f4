/**
 * Shutting down behind a pooler that cannot reach PostgreSQL. PgBouncer lets the server's
 * connections in and holds each statement until it gets a server connection or its
 * `query_wait_timeout` (120 s by default) runs out. A request whose statement it held answered
 * `503` at the request timeout, but the statement stayed on its connection, and closing the pool
 * waited for that connection: `serve` on SIGTERM was killed by its 10 s shutdown deadline, exit
 * code 1 and "killed by timeout (10000ms)". The shutdown now ends the connections left once the
 * requests in flight are done (db/database.ts, `closeDatabase`).
 *
 * The pooler is a fake that logs every client in and never answers after that
 * (test/fixtures/fake-postgres.ts); the reliability suite does the same through a real PgBouncer
 * with the `serve` process (test/reliability/pooler.reliability.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/db/database.js';
import { generateToken } from '../src/modules/access-tokens/token.js';
import { shutDown } from '../src/server.js';
import { startParkingPooler } from './fixtures/fake-postgres.js';
import { TEST_HELPERS_KEY } from './harness.js';
import { testConfig } from './test-config.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A server behind a fake pooler (`login: false`: one that never answers the login), asked once
 * for a read that needs the database; closed after the test, whatever happens.
 */
async function askBehindPooler(pooler: 'none' | 'transaction', options: { login?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mkt-pooler-shutdown-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const parking = await startParkingPooler(options);
  const url = `postgres://app@127.0.0.1:${parking.port}/marketplace`;
  const orm = await openDatabase({ url, dataDir: dir, poolSize: 2, pooler });
  let closed = false;
  cleanups.push(async () => {
    if (!closed) await orm.close(true);
  });
  // Closed first: on a failure it lets go of the held connection, so the ORM can close.
  cleanups.push(() => parking.close());
  const app = await buildApp({
    config: testConfig(dir, TEST_HELPERS_KEY, { databaseUrl: url, databasePooler: pooler }),
    orm,
    logger: false,
    overload: { maxEventLoopDelay: 0 },
    requestTimeout: 200,
  });
  const res = await app.inject({
    url: '/me/access_tokens.json',
    headers: { authorization: `Bearer ${generateToken()}` },
  });
  return {
    parking,
    res,
    async shutDown() {
      await shutDown(app, orm);
      closed = true;
    },
  };
}

describe('shutting down while the pooler holds a statement', () => {
  // Without the setting, the statement held is the planning `SET` of a new connection; with it,
  // the request's own statement.
  for (const pooler of ['none', 'transaction'] as const)
    it(`MARKETPLACE_DATABASE_POOLER=${pooler}: the request answers 503, then the shutdown ends the held connection and finishes`, async () => {
      const { parking, res, shutDown } = await askBehindPooler(pooler);
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      await parking.parked();
      expect(parking.logins).toBe(1);
      expect(parking.open).toBe(1);

      await shutDown();
      // The held connection was ended by the server, not by the pooler giving up.
      await parking.allClosed();
      expect(parking.open).toBe(0);
    });

  // `pg`'s `end()` on a client still logging in drops its connect callback: a review asked
  // whether the shutdown then waits for the pool for ever. It does not, and the login's
  // connection is closed (at once: tried by hand, 3 ms; the connect timeout would take 3 s).
  it('a connection still logging in when the shutdown comes is closed with the rest, and the shutdown finishes', async () => {
    const { parking, res, shutDown } = await askBehindPooler('transaction', { login: false });
    expect(res.statusCode).toBe(503);
    await parking.parked();
    expect(parking.logins).toBe(0);
    expect(parking.open).toBe(1);

    await shutDown();
    await parking.allClosed();
    expect(parking.open).toBe(0);
  });
});
