import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { migrate, type Orm } from '../src/db/database.js';
import { openEmptyDatabase, useTestServer } from './harness.js';
import { sample } from './metrics-text.js';
import { testConfig } from './test-config.js';

/** A server on a database of its own that starts empty: its migrations are run by the test. */
describe('GET /ready on a database being migrated', () => {
  let dir: string;
  let orm: Orm;
  let closeDatabase: () => Promise<void>;
  let app: FastifyInstance;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mkt-ready-'));
    ({ orm, close: closeDatabase } = await openEmptyDatabase());
    app = await buildApp({ config: testConfig(dir, 'k'.repeat(32)), orm, logger: false });
  });
  afterAll(async () => {
    await app?.close();
    await closeDatabase?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is 503 with Retry-After while migrations are pending, 200 once they are applied', async () => {
    const waiting = await app.inject('/ready');
    expect(waiting.statusCode).toBe(503);
    expect(waiting.headers['retry-after']).toBe('1');
    const body = waiting.json();
    expect(body.status).toBe('migrations pending');
    expect(body.pending.length).toBeGreaterThan(0);
    // The process is alive meanwhile.
    expect((await app.inject('/health')).statusCode).toBe(200);

    await orm.migrator.up({ to: body.pending[0] });
    const fewer = await app.inject('/ready');
    expect(fewer.statusCode).toBe(503);
    expect(fewer.json().pending).toEqual(body.pending.slice(1));

    await migrate(orm);
    const ready = await app.inject('/ready');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
    // The two 503s are counted by their cause, none as an unnamed one.
    const metrics = (await app.inject('/metrics')).body;
    expect(sample(metrics, 'http_unavailable_responses_total', { cause: 'migrations' })).toBe(2);
    expect(sample(metrics, 'http_unavailable_responses_total', { cause: 'other' })).toBeUndefined();
  });
});

describe('GET /ready when the database goes away', () => {
  const server = useTestServer();

  it('is 503 with Retry-After once the database does not answer', async () => {
    // The test databases are built from the entities: record the migrations as applied.
    await server.orm.migrator.getStorage().ensureTable?.();
    for (const m of await server.orm.migrator.getPending())
      await server.orm.migrator.getStorage().logMigration({ name: m.name });
    expect((await server.get('/ready')).statusCode).toBe(200);

    await server.stopDatabase();
    const res = await server.get('/ready');
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json()).toEqual({ status: 'database unavailable' });
    const metrics = (await server.get('/metrics')).body;
    expect(sample(metrics, 'http_unavailable_responses_total', { cause: 'database' })).toBeGreaterThanOrEqual(
      1,
    );
    expect(sample(metrics, 'http_unavailable_responses_total', { cause: 'other' })).toBeUndefined();
  });
});
