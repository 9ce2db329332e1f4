/**
 * The kit's server (see `index.ts`): loaded only once the Node.js version is known to be new
 * enough, since the server's dependencies would crash on an older one.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ClientOptions, Marketplace } from '@app/sdk';
import { buildApp, loadConfig, openDatabase, processRunning } from '@app/server';
import { PGlite } from '@electric-sql/pglite';
import type { ChosenDatabase } from './database-url.js';
import { freePort } from './free-port.js';
import type { TestServer, TestServerOptions } from './index.js';
import { type KitDatabase, openPostgres } from './postgres.js';
import { discardSnapshot, migratedSnapshot } from './snapshot.js';

type App = Awaited<ReturnType<typeof buildApp>>;

/** A PGlite loaded from the cached dump; a dump it cannot load is made again, once. */
async function bootFromSnapshot(): Promise<PGlite> {
  const load = async () =>
    PGlite.create({ loadDataDir: new Blob([(await migratedSnapshot()) as Uint8Array<ArrayBuffer>]) });
  try {
    return await load();
  } catch {
    discardSnapshot();
    return load();
  }
}

/** An in-memory PGlite of the server's own, booted from the migrated snapshot. */
async function openPglite(dataDir: string): Promise<KitDatabase> {
  const pglite = await bootFromSnapshot();
  // The ORM does not close a PGlite it was handed; an in-memory one it opened itself would
  // reconnect, empty, on the next query. This one is closed here, for good (and its WebAssembly
  // memory released now, not whenever the garbage collector gets to it).
  const closePglite = async () => {
    if (!pglite.closed) await pglite.close();
  };
  try {
    // Already migrated: the snapshot is made from this server's migrations (snapshot.ts).
    const orm = await openDatabase({ url: undefined, dataDir, pglite });
    return {
      orm,
      url: 'pglite://memory',
      sql: (query, params) => orm.em.fork().execute(query, params as never[]),
      close: async () => {
        await orm.close(true);
        await closePglite();
      },
    };
  } catch (error) {
    await closePglite();
    throw error;
  }
}

/**
 * `options` without the entries given as `undefined`: such an option is as if not given (as in the
 * SDK), so it neither replaces the kit's own (`baseUrl`, `LOG_LEVEL`) nor reaches the server.
 */
function definedOnly<T extends object>(options: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}

/** A server's folder: `mkt-test-server-<pid of its process>-<random>` in the system's temp folder. */
const DATA_DIR_PREFIX = 'mkt-test-server-';

/**
 * Removes the folders of servers, and of snapshots being made (`mkt-snapshot-<pid>-…`,
 * snapshot.ts), whose process is gone: `close()` removes a server's own, but a process killed
 * (SIGKILL, Ctrl-C, a runner's timeout, `process.exit` in a test) never calls it.
 */
function removeLeftoverDataDirs(dir = tmpdir()): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^mkt-(?:test-server|snapshot)-(\d+)-/.exec(name)?.[1]);
    if (pid > 0 && pid !== process.pid && !processRunning(pid))
      rmSync(join(dir, name), { recursive: true, force: true });
  }
}

/** Starts a test server: see {@link startTestServer} in `index.ts`. */
export async function start(options: TestServerOptions, database: ChosenDatabase): Promise<TestServer> {
  const helpersKey = options.helpersKey ?? `test-helpers-${randomBytes(24).toString('base64url')}`;
  removeLeftoverDataDirs();
  const dataDir = mkdtempSync(join(tmpdir(), `${DATA_DIR_PREFIX}${process.pid}-`));
  const settings = {
    LOG_LEVEL: 'silent',
    ...definedOnly(options.env ?? {}),
    HOST: '127.0.0.1',
    MARKETPLACE_DATA_DIR: dataDir,
    MARKETPLACE_TEST_HELPERS_KEY: helpersKey,
  };
  let kitDatabase: KitDatabase | undefined;
  let app: App | undefined;
  let url = '';
  // Each step is taken even when one before it failed (PostgreSQL gone mid-run, a database that
  // could not be dropped): the folder is always removed, and the first failure is what rejects.
  const shutDown = async () => {
    const closed = app?.close();
    // The tests are over: a connection still open is not waited for. Fastify's close ends the idle
    // ones and waits for the rest, and under load CI saw a keep-alive connection of a finished
    // GET /uploads/… stay open, so `close()` hung for a minute (packages/mcp/test/hostile.test.ts).
    app?.server.closeAllConnections();
    try {
      await closed;
    } finally {
      try {
        // PGlite: closed for good; PostgreSQL: the kit's database dropped, its connections closed.
        await kitDatabase?.close();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  };
  try {
    if (database.postgres) {
      // Settings that are wrong stop the start before a database is made; the pool's are the env's.
      const { databasePoolSize, databasePooler } = loadConfig({ ...settings, DATABASE_URL: database.url });
      kitDatabase = await openPostgres(database.url, {
        setting: database.setting,
        target: database.postgres,
        dataDir,
        poolSize: databasePoolSize,
        pooler: databasePooler,
      });
    } else {
      kitDatabase = await openPglite(dataDir);
    }
    const { orm } = kitDatabase;
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const config = loadConfig({
        ...settings,
        PORT: String(port),
        DATABASE_URL: kitDatabase.url,
        MARKETPLACE_BASE_URL: `http://127.0.0.1:${port}`,
      });
      // No event-loop-delay 503s: a test runner's own work must not make the server refuse requests.
      app = await buildApp({
        config,
        orm,
        overload: { maxEventLoopDelay: 0 },
        ...(options.random && { random: options.random }),
      });
      try {
        await app.listen({ port, host: config.host });
        url = config.baseUrl;
        break;
      } catch (error) {
        await app.close();
        app = undefined;
        // Another process took the port between the probe and the listen: try another one.
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 5) throw error;
      }
    }
  } catch (error) {
    // The start's own error is the one to see.
    await shutDown().catch(() => {});
    throw error;
  }

  let closing: Promise<void> | undefined;
  const client = (token: string, clientOptions: Partial<ClientOptions> = {}) =>
    new Marketplace({ token, baseUrl: url, testHelpersKey: helpersKey, ...definedOnly(clientOptions) });
  // The test helpers take the key, not a token; the client insists on one all the same.
  const admin = client('mkt_unused_the_test_helpers_send_their_key');
  const kit = kitDatabase;
  let users = 0;

  return {
    url,
    helpersKey,
    async createUser(userOptions = {}) {
      users += 1;
      const email = userOptions.email ?? `user${users}-${randomBytes(4).toString('hex')}@example.com`;
      const { access_token } = await admin.testHelpers.createUser({
        user: { name: userOptions.name ?? `User ${users}`, email },
        access_token: { permission: userOptions.permission ?? 'write' },
      });
      return access_token.token;
    },
    client,
    testHelpers: admin.testHelpers,
    sql: <T>(query: string, params: readonly unknown[] = []) => kit.sql(query, params) as Promise<T[]>,
    async reset() {
      await admin.testHelpers.reset();
    },
    close() {
      closing ??= shutDown();
      return closing;
    },
  };
}
