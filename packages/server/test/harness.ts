/**
 * Test harness: a real app on its own database per test file (a PGlite copy of the migrated
 * snapshot, booted for the file or handed on, emptied, by the worker's previous file; or a
 * PostgreSQL database cloned from the migrated template), emptied before each test, with its
 * upload store (a directory, or an S3 store of its own), emptied too. Requests go through
 * `app.inject()`; `queries` records every statement sent.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, inject } from 'vitest';
import { type AppOptions, buildApp } from '../src/app.js';
import type { Config } from '../src/config.js';
import { type Orm, openDatabase, type QueryListener } from '../src/db/database.js';
import { createUploadStore } from '../src/modules/uploads/stores.js';
import type { UploadStore } from '../src/modules/uploads/uploads.js';
import { createUserWithToken } from '../src/modules/users/users.service.js';
import { databaseUrlWith } from './global-setup.js';
import { startS3, type TestS3 } from './s3-store.js';
import { testConfig } from './test-config.js';

/** The upload stores the upload suites run on (`describe.each(STORAGE_DRIVERS)`). */
export const STORAGE_DRIVERS = ['directory', 's3'] as const;
export type StorageDriver = (typeof STORAGE_DRIVERS)[number];

export const TEST_HELPERS_KEY = 'test-helpers-key-0123456789abcdefghij';

/** The URL the API gives out for an uploaded PNG: a random 32-character name under /uploads. */
export const PNG_UPLOAD_URL = /^http:\/\/marketplace\.test\/uploads\/[A-Za-z0-9_-]{32}\.png$/;

/** The stored name of an upload, from the URL the API gave out for it (`logo_url`, `banner_image_url`). */
export const uploadName = (url: string) => new URL(url).pathname.slice('/uploads/'.length);

export interface TestUser {
  user: { id: string; name: string; email: string };
  token: string;
  tokenId: string;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sends a multipart form instead of JSON. */
  form?: FormData;
}

export interface TestServer {
  readonly app: FastifyInstance;
  readonly orm: Orm;
  readonly config: Config;
  /** Every SQL statement sent since the last `queries.length = 0`. */
  readonly queries: string[];
  request(method: string, url: string, options?: RequestOptions): Promise<LightMyRequestResponse>;
  get(url: string, options?: RequestOptions): Promise<LightMyRequestResponse>;
  post(url: string, options?: RequestOptions): Promise<LightMyRequestResponse>;
  patch(url: string, options?: RequestOptions): Promise<LightMyRequestResponse>;
  delete(url: string, options?: RequestOptions): Promise<LightMyRequestResponse>;
  /** A user with a token (write unless said otherwise). */
  createUser(options?: { name?: string; permission?: 'read' | 'write' }): Promise<TestUser>;
  /** Runs SQL on the test database (for set-up and for checking what was stored). */
  sql<T = Record<string, unknown>>(query: string, params?: unknown[]): Promise<T[]>;
  /** Makes the database unreachable for the rest of the file (PGlite closed, or the pool ended). */
  stopDatabase(): Promise<void>;
  /**
   * Lets connections in again after {@link stopDatabase}: PostgreSQL only (a closed PGlite stays
   * closed; this rejects on it). The data is as the stop left it: tests are not emptied before.
   */
  startDatabase(): Promise<void>;
  /** The server's upload store, for checking what was stored. */
  readonly uploads: UploadStore;
  /** Names of the stored uploads, sorted. */
  storedUploads(): Promise<string[]>;
  /** What a client without a token gets at the URL the API gave out for an upload. */
  getUpload(url: string): Promise<{ status: number; type: string | undefined; bytes: Buffer }>;
  /**
   * Makes the upload store fail for the rest of the file: the S3 store is stopped; the directory
   * is moved away and a file put in its place.
   */
  breakUploadStore(): Promise<void>;
}

/**
 * Empties every table: rows deleted, not tables truncated (MikroORM's default). A TRUNCATE makes
 * new files for the table and commits on its own, ~0.7 s a test for the 20-odd tables on
 * PostgreSQL (the run there took 300 s, 245 s after). Deleting fires the count triggers, which
 * take every count down to none (db/pages.ts), as an empty database has.
 */
const clearRows = (orm: Orm) => orm.schema.clear({ truncate: false });

/**
 * What must be as it was when the file began for a PGlite to go to the next file: the tables,
 * columns, indexes, constraints, triggers and functions, and the settings of the session (`SET`),
 * less the server's own (`plan_cache_mode`, set on every connection's first statement). Rows are
 * not in it: the tables are emptied before each test.
 */
const STATE = `select md5(string_agg(item, ',' order by item)) as state from (
  select 'c ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') as item
    from information_schema.columns where table_schema = 'public'
  union all select 'i ' || indexdef from pg_indexes where schemaname = 'public'
  union all select 'k ' || conrelid::regclass::text || ' ' || pg_get_constraintdef(oid) from pg_constraint where connamespace = 'public'::regnamespace
  union all select 't ' || tgname || ' ' || tgenabled::text from pg_trigger where not tgisinternal
  union all select 'f ' || proname || ' ' || md5(prosrc) from pg_proc where pronamespace = 'public'::regnamespace
  union all select 's ' || name || '=' || setting from pg_settings where source = 'session' and name <> 'plan_cache_mode'
) items`;

const stateOf = async (pglite: PGlite) =>
  (await pglite.query<{ state: string }>(STATE)).rows[0]?.state as string;

/**
 * A PGlite booted from the snapshot that a test file of this worker is done with (the server's
 * files share a worker's modules: `isolate: false`), with its state when that file began: the next
 * file takes it instead of booting another (1.3 s of WebAssembly on an idle core, more on a busy one).
 */
let spare: { pglite: PGlite; state: string } | undefined;

/**
 * A database of the test file's own: a copy of the migrated one, or (`empty`) one with no schema
 * and no migrations applied, for the tests of migrations themselves. On PGlite, `handOn` (before
 * the ORM closes) deletes the rows and keeps the instance for the worker's next file when its schema
 * and session are as they were; `drop` closes it otherwise.
 */
async function openTestDatabase(
  dataDir: string,
  onQuery?: QueryListener,
  { empty = false }: { empty?: boolean } = {},
) {
  const database = inject('database');
  if (database.kind === 'pglite') {
    // Both are dumps made once by the set-up: booting one skips the seconds of WebAssembly a new
    // instance takes.
    const handed = empty ? undefined : spare;
    spare = undefined;
    const pglite =
      handed?.pglite ??
      (await PGlite.create({
        loadDataDir: new Blob([readFileSync(empty ? database.empty : database.snapshot)]),
      }));
    const orm = await openDatabase({ url: undefined, dataDir, pglite, onQuery });
    const state = handed?.state ?? (await stateOf(pglite));
    const stop = async () => {
      if (!pglite.closed) await pglite.close();
    };
    const start = () => Promise.reject(new Error('a closed PGlite cannot be opened again'));
    // Before the ORM closes: its rows deleted, the instance goes to the next file if it is as booted.
    const handOn = async () => {
      if (empty || pglite.closed || spare) return;
      // A transaction a test left open ends here (outside one, this is a warning and nothing more).
      const kept = await pglite
        .exec('rollback')
        .then(() => clearRows(orm))
        .then(
          async () => (await stateOf(pglite)) === state,
          () => false,
        );
      if (kept) spare = { pglite, state };
    };
    // After it: closed, unless handed on.
    const drop = async () => {
      if (spare?.pglite !== pglite) await stop();
    };
    return { orm, stop, start, drop, handOn };
  }
  const name = `mkt_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query(`create database ${name}${empty ? '' : ` template ${database.template}`}`);
  const orm = await openDatabase({ url: databaseUrlWith(database.url, name), dataDir, onQuery });
  return {
    orm,
    // Like a database server going away: connections are cut and new ones refused.
    stop: async () => {
      await admin.query(`alter database ${name} allow_connections false`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
    },
    start: async () => {
      await admin.query(`alter database ${name} allow_connections true`);
    },
    drop: async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
    handOn: async () => undefined,
  };
}

/**
 * An empty database (no schema, no migrations applied) of the kind under test: PGlite, or a new
 * PostgreSQL database when TEST_DATABASE_URL is set. For the tests of migrations themselves;
 * `close` closes the ORM and drops the database.
 */
export async function openEmptyDatabase(): Promise<{
  orm: Orm;
  /**
   * Another ORM on the same database, as a second process has (closed by `close`): on PostgreSQL
   * a pool of its own; embedded PGlite has one process, so it is `orm` again.
   */
  another: () => Promise<Orm>;
  close: () => Promise<void>;
}> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mkt-empty-'));
  const { orm, drop } = await openTestDatabase(dataDir, undefined, { empty: true });
  const others: Orm[] = [];
  const url = orm.config.get('clientUrl');
  return {
    orm,
    another: async () => {
      if (inject('database').kind === 'pglite' || !url) return orm;
      const other = await openDatabase({ url, dataDir });
      others.push(other);
      return other;
    },
    close: async () => {
      for (const other of others) await other.close(true);
      await orm.close(true);
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Starts a test server for the calling test file; settings may be overridden. */
export function useTestServer(
  overrides: Partial<Config> = {},
  appOptions: Pick<AppOptions, 'random' | 'overload' | 'tracing' | 'requestTimeout'> = {},
  /**
   * `keepData`: fixtures built once in `beforeAll` stay for every test of the file; `onQuery`
   * also sees every statement (as `queries` does), with the time it took. `storage`: where
   * uploads go (default the directory `dataDir/uploads`).
   */
  options: { keepData?: boolean; onQuery?: QueryListener; storage?: StorageDriver } = {},
): TestServer {
  const queries: string[] = [];
  let app: FastifyInstance;
  let orm: Orm;
  let config: Config;
  let drop: () => Promise<void>;
  let handOn: () => Promise<void>;
  let stop: () => Promise<void>;
  let start: () => Promise<void>;
  let dataDir: string;
  let counter = 0;
  let stopped = false;
  let s3: TestS3 | undefined;
  let storeBroken = false;
  let uploads: UploadStore;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mkt-server-'));
    const db = await openTestDatabase(dataDir, (sql, detail) => {
      queries.push(sql);
      options.onQuery?.(sql, detail);
    });
    orm = db.orm;
    drop = db.drop;
    handOn = db.handOn;
    stop = db.stop;
    start = db.start;
    if (options.storage === 's3') s3 = await startS3();
    config = testConfig(dataDir, TEST_HELPERS_KEY, {
      ...(s3 && { storage: s3.location }),
      ...overrides,
    });
    uploads = await createUploadStore(config.storage, { warn: () => {} });
    // No event-loop-delay 503s here: WASM start-up and parallel files would trip them at random.
    app = await buildApp({
      config,
      orm,
      logger: process.env.TEST_LOG ? { level: 'error' } : false,
      overload: { maxEventLoopDelay: 0 },
      ...appOptions,
    });
    await app.ready();
  });

  beforeEach(async () => {
    if (stopped || options.keepData) return;
    await clearRows(orm);
    if (!storeBroken) await Promise.all((await uploads.list()).map((name) => uploads.remove(name)));
    queries.length = 0;
  });

  afterAll(async () => {
    await app?.close();
    if (!stopped) await handOn?.();
    await orm?.close(true);
    await drop?.();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await s3?.remove();
  });

  const server: TestServer = {
    get app() {
      return app;
    },
    get orm() {
      return orm;
    },
    get config() {
      return config;
    },
    queries,
    async request(method, url, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      let payload: string | Buffer | undefined;
      if (options.form) {
        const encoded = new Request('http://form.test', { method: 'POST', body: options.form });
        payload = Buffer.from(await encoded.arrayBuffer());
        headers['content-type'] = encoded.headers.get('content-type') as string;
      } else if (options.body !== undefined) {
        payload =
          typeof options.body === 'string' || Buffer.isBuffer(options.body)
            ? options.body
            : JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      return app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined && { payload }) });
    },
    get: (url, options) => server.request('GET', url, options),
    post: (url, options) => server.request('POST', url, options),
    patch: (url, options) => server.request('PATCH', url, options),
    delete: (url, options) => server.request('DELETE', url, options),
    async createUser(options = {}) {
      counter += 1;
      const name = options.name ?? `User ${counter}`;
      const created = await createUserWithToken(
        orm.em.fork(),
        { name, email: `user${counter}-${randomBytes(3).toString('hex')}@example.com` },
        { permission: options.permission ?? 'write' },
      );
      return { user: created.user, token: created.access_token.token, tokenId: created.access_token.id };
    },
    sql: (query, params = []) => orm.em.fork().execute(query, params as never[]),
    stopDatabase: () => {
      stopped = true;
      return stop();
    },
    startDatabase: () => start(),
    get uploads() {
      return uploads;
    },
    storedUploads: () => uploads.list(),
    async getUpload(url) {
      const res = await server.get(new URL(url).pathname);
      return { status: res.statusCode, type: res.headers['content-type'], bytes: res.rawPayload };
    },
    async breakUploadStore() {
      storeBroken = true;
      if (s3) return s3.stop();
      if (config.storage.driver !== 'directory') throw new Error('no store to break');
      const { dir } = config.storage;
      rmSync(`${dir}.moved`, { recursive: true, force: true });
      try {
        renameSync(dir, `${dir}.moved`);
      } catch {
        // no directory yet
      }
      writeFileSync(dir, 'not a directory');
    },
  };
  return server;
}
