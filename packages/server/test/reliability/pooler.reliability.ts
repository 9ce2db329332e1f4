/**
 * Behind a pooler (issue #27 item 5; docs/deploy.md, "Behind a pooler"): the server through
 * PgBouncer in transaction mode, started by the test from a configuration of its own. With
 * `MARKETPLACE_DATABASE_POOLER=transaction` a mixed load (creates with Idempotency-Key, shows,
 * pages, updates, conditional GETs, transitions) gets no 5xx; without it, the same load meets
 * `prepared statement "caller" does not exist` (or `… already exists`) once: the server then sends
 * its statements unnamed, as the setting makes it, says so in one warning, and answers that
 * request too (db/statements.ts). And `serve`, stopped while PgBouncer cannot reach PostgreSQL,
 * exits at once with code 0.
 * Skipped, saying why, when PgBouncer is not installed (Debian: `apt-get install -y pgbouncer`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from '@app/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { generateToken } from '../../src/modules/access-tokens/token.js';
import { databaseUrlWith } from '../global-setup.js';
import { PGBOUNCER_MISSING, type PgBouncer, pgbouncerInstalled, startPgBouncer } from './pgbouncer.js';
import { createTestDatabase, createUser, type Instance, listen, type TestDatabase } from './support.js';

const installed = pgbouncerInstalled();
if (!installed) console.warn(`pooler.reliability.ts skipped: ${PGBOUNCER_MISSING}`);

const WORKERS = 10;
const ROUNDS = 8;

let db: TestDatabase;
let bouncer: PgBouncer;

beforeAll(async () => {
  if (!installed) return;
  db = await createTestDatabase();
  bouncer = (await startPgBouncer(db.url)) as PgBouncer;
});

afterAll(async () => {
  await bouncer?.stop();
  await db?.drop();
});

/** A server over its own pool through PgBouncer, with the setting given. */
async function serverThroughPooler(pooler: 'none' | 'transaction'): Promise<Instance> {
  const orm = await openDatabase({ url: bouncer.urlFor(db.url), dataDir: '', poolSize: 10 });
  return listen(orm, { config: { databasePooler: pooler }, logs: true });
}

/** The mixed load: every answer's status, and the bodies of the 5xx. */
async function mixedLoad(instance: Instance) {
  const { token } = await createUser(instance.orm);
  const statuses = new Map<number, number>();
  const failures: string[] = [];
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${instance.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...(method === 'POST' && { 'idempotency-key': randomUUID() }),
        ...headers,
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      redirect: 'manual',
    });
    const text = await res.text();
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    if (res.status >= 500) failures.push(`${method} ${path}: ${res.status} ${text}`);
    return { status: res.status, etag: res.headers.get('etag'), json: () => JSON.parse(text) };
  };
  await Promise.all(
    Array.from({ length: WORKERS }, async (_, w) => {
      const org = await call('POST', '/organizations.json', { organization: { name: `w${w}` } });
      if (org.status !== 201) return;
      const orgId: string = org.json().id;
      const base = `/organizations/${orgId}/collabs`;
      for (let i = 0; i < ROUNDS; i++) {
        const created = await call('POST', `${base}.json`, { collab: { name: `w${w}-${i}` } });
        if (created.status !== 201) continue;
        const id: string = created.json().id;
        const shown = await call('GET', `${base}/${id}.json`);
        await call('GET', `${base}/${id}.json`, undefined, { 'if-none-match': shown.etag ?? '' });
        await call('PATCH', `${base}/${id}.json`, { collab: { name: `w${w}-${i}-renamed` } });
        await call('GET', `${base}.json`);
        await call('GET', `/organizations/${orgId}.json`);
        if (i % 2 === 0) await call('POST', `${base}/${id}/submit.json`);
      }
    }),
  );
  return { statuses: Object.fromEntries(statuses), failures };
}

describe.skipIf(!installed)('behind PgBouncer in transaction mode', () => {
  it('MARKETPLACE_DATABASE_POOLER=transaction: a mixed load gets no 5xx, and every write is stored once', async () => {
    const instance = await serverThroughPooler('transaction');
    try {
      const { statuses, failures } = await mixedLoad(instance);
      console.log(`pooler (transaction): ${JSON.stringify(statuses)}`);
      expect(failures).toEqual([]);
      expect(instance.logs.filter((entry) => entry.level >= 50)).toEqual([]);
      // Every create answered 201, each row once.
      expect(statuses[201]).toBe(WORKERS + WORKERS * ROUNDS);
      const [row] = await db.sql<{ n: number }>('select count(*)::int as n from collabs');
      expect(row?.n).toBe(WORKERS * ROUNDS);
      expect(statuses).toMatchObject({
        200: expect.any(Number),
        304: WORKERS * ROUNDS,
        303: expect.any(Number),
      });
    } finally {
      await instance.close();
      await instance.orm.close(true);
    }
  });

  it('without the setting: the first named statement that meets the pooler turns the server unnamed, one warning, no 5xx', async () => {
    const instance = await serverThroughPooler('none');
    const count = async () =>
      (await db.sql<{ n: number }>('select count(*)::int as n from collabs'))[0]?.n ?? 0;
    try {
      const before = await count();
      const { statuses, failures } = await mixedLoad(instance);
      console.log(`pooler (none): ${JSON.stringify(statuses)}`);
      // Before, most answers were 500s ("prepared statement "caller" already exists", 42P05, or
      // "… does not exist", 26000) while /ready said 200.
      expect(failures).toEqual([]);
      expect(statuses[201]).toBe(WORKERS + WORKERS * ROUNDS);
      expect(instance.logs.filter((entry) => entry.level >= 50)).toEqual([]);
      // One warning, saying which setting the operator missed.
      const warnings = instance.logs.filter((entry) => entry.level === 40);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.msg).toMatch(/unnamed statements from now on/);
      expect(warnings[0]?.hint).toMatch(/set MARKETPLACE_DATABASE_POOLER=transaction/i);
      expect(warnings[0]?.err?.code).toMatch(/^(26000|42P05)$/);
      // Every write stored once: a statement run again unnamed had not run.
      expect((await count()) - before).toBe(WORKERS * ROUNDS);
    } finally {
      await instance.close();
      await instance.orm.close(true);
    }
  });
});

const SERVER_DIR = new URL('../..', import.meta.url).pathname;
/** The Node 24 the repository's scripts run on; the machine's own `node` may be older. */
const NODE = existsSync(join(SERVER_DIR, '../../node_modules/node/bin/node'))
  ? join(SERVER_DIR, '../../node_modules/node/bin/node')
  : process.execPath;

describe.skipIf(!installed)('serve behind PgBouncer that cannot reach PostgreSQL', () => {
  // PgBouncer holds a statement of a connection it let in until it gets a server connection or its
  // `query_wait_timeout` (120 s) runs out. The request answered 503 at the request timeout, but
  // the shutdown waited for that connection: `serve` was killed by its 10 s deadline, exit code 1,
  // "killed by timeout (10000ms)" (test/pooler-shutdown.test.ts does the same with a fake pooler).
  it('SIGTERM after a request answered 503: exits with code 0, without its deadline', async () => {
    // An empty database, which `serve` migrates (the template's schema has no migration records).
    const { url: clusterUrl } = inject('postgres');
    const admin = new pg.Client({ connectionString: clusterUrl });
    await admin.connect();
    const name = `mkt_rel_${randomBytes(6).toString('hex')}`;
    await admin.query(`create database ${name}`);
    // A PgBouncer of its own: this one is cut off from PostgreSQL.
    const cutOff = (await startPgBouncer(clusterUrl)) as PgBouncer;
    const dir = mkdtempSync(join(tmpdir(), 'mkt-pooler-serve-'));
    const port = await freePort();
    let child: ChildProcess | undefined;
    try {
      child = spawn(NODE, [join(SERVER_DIR, 'dist/cli.js'), 'serve'], {
        cwd: SERVER_DIR,
        env: {
          ...process.env,
          DATABASE_URL: cutOff.urlFor(databaseUrlWith(clusterUrl, name)),
          MARKETPLACE_DATA_DIR: dir,
          HOST: '127.0.0.1',
          PORT: String(port),
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const output: string[] = [];
      const exit = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
      await new Promise<void>((resolve, reject) => {
        for (const stream of [child?.stdout, child?.stderr])
          if (stream)
            createInterface({ input: stream }).on('line', (line) => {
              output.push(line);
              if (line.includes('listening on')) resolve();
            });
        void exit.then((code) => reject(new Error(`serve exited (${code}):\n${output.join('\n')}`)));
      });
      const url = `http://127.0.0.1:${port}/me/access_tokens.json`;
      const headers = { authorization: `Bearer ${generateToken()}` };
      // Up: the token is looked up (and is nobody's), on a connection the pool keeps.
      expect((await fetch(url, { headers })).status).toBe(401);
      // PgBouncer cannot reach PostgreSQL from now on, and the session it had is cut. (A PostgreSQL
      // that refuses its logins is another case: PgBouncer then fails the waiting statements.)
      await cutOff.cutOff();
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
      // Its statement waits in PgBouncer on the kept connection until the request timeout.
      const res = await fetch(url, { headers });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');

      child.kill('SIGTERM');
      expect(await exit).toBe(0);
      expect(output.filter((line) => line.includes('killed by timeout'))).toEqual([]);
      expect(output.some((line) => line.includes('"msg":"shutting down"'))).toBe(true);
    } finally {
      if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await cutOff.stop();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
