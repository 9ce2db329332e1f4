/**
 * The test kit for integrators: the real reference server, started in-process on an in-memory
 * PGlite booted from a migrated snapshot (or on a database of its own on a PostgreSQL server:
 * `databaseUrl`), with its test helpers on.
 *
 * @example
 * ```ts
 * import { startTestServer } from '@app/testing';
 *
 * const server = await startTestServer();
 * const client = server.client(await server.createUser());
 * await client.organizations.create({ name: 'Acme' });
 * await server.reset();
 * await server.close();
 * ```
 */
import type { ClientOptions, Marketplace } from '@app/sdk';
import { chooseDatabase } from './database-url.js';

export { freePort } from './free-port.js';

/**
 * Every option, of the kit and of its calls, may be given as `undefined` (an unset environment
 * variable, under `exactOptionalPropertyTypes` too): it is then as if it were not given, as in
 * `@app/sdk`.
 */
export interface TestServerOptions {
  /** The test-helpers key (at least 32 characters); a random one by default. */
  helpersKey?: string | undefined;
  /**
   * Where the server's database is made. `pglite://memory`: an in-memory PGlite of the server's
   * own. A `postgres://` (or `postgresql://`) URL: a database of the server's own on that
   * PostgreSQL server (`mkt_kit_…`), created and migrated at start, emptied by `reset()`, dropped
   * by `close()`. Read as the server reads its `DATABASE_URL`: a Unix socket too
   * (`postgres://postgres@/postgres?host=/var/run/postgresql`). The URL's user needs `CREATEDB`;
   * the database it names is only where the kit connects to create and drop its own, and is never
   * written to. PostgreSQL 13 or newer.
   *
   * Unset (or empty): the environment variable `MARKETPLACE_TEST_DATABASE_URL` when it is set,
   * else `pglite://memory`.
   *
   * @example
   * ```ts
   * await startTestServer({ databaseUrl: 'postgres://postgres:postgres@localhost:5432/postgres' });
   * ```
   */
  databaseUrl?: string | undefined;
  /**
   * More settings, as the server's environment variables (e.g. `MARKETPLACE_LIMIT_COLLABS`,
   * `MARKETPLACE_CHAOS_503_RATE`, `LOG_LEVEL`); `PORT`, `HOST`, `DATABASE_URL`,
   * `MARKETPLACE_BASE_URL` and the data directory are the kit's. A variable given as `undefined`
   * is not set (the kit's `LOG_LEVEL: 'silent'` stays).
   */
  env?: Record<string, string | undefined> | undefined;
  /**
   * The random source of the server's chaos 503s (`MARKETPLACE_CHAOS_503_RATE`), for a run that
   * is the same every time; `Math.random` by default.
   */
  random?: (() => number) | undefined;
}

export interface CreateUserOptions {
  name?: string | undefined;
  /** A unique address is made up when none is given. */
  email?: string | undefined;
  /** `write` by default. */
  permission?: 'read' | 'write' | undefined;
}

export interface TestServer {
  /** Where it listens, e.g. `http://127.0.0.1:41234` (also the origin of `url` fields). */
  readonly url: string;
  /** Its test-helpers key (`client(token).testHelpers` already carries it). */
  readonly helpersKey: string;
  /** Makes a user through the test helpers; resolves to its access token (`mkt_…`). */
  createUser(options?: CreateUserOptions): Promise<string>;
  /**
   * An `@app/sdk` client of this server for `token`, with the test-helpers key set. `options` are
   * the SDK's; `baseUrl`, `token` and `testHelpersKey` given there replace the kit's, unless given
   * as `undefined`.
   */
  client(token: string, options?: Partial<ClientOptions>): Marketplace;
  /**
   * The SDK's test helpers (`Marketplace['testHelpers']`), keyed for this server and needing no
   * token: for what needs a user's id (`createUser()` resolves to `{ user, access_token }` here),
   * e.g. a notification, a membership, a join request.
   */
  readonly testHelpers: Marketplace['testHelpers'];
  /**
   * Runs SQL on the server's database (`?` placeholders) and resolves to its rows: to check what
   * your code stored.
   */
  sql<T = Record<string, unknown>>(query: string, params?: readonly unknown[]): Promise<T[]>;
  /** Empties the sandbox (`POST /test_helpers/reset.json`): users, tokens, everything, uploads. */
  reset(): Promise<void>;
  /**
   * Stops listening, then closes the database for good (on PostgreSQL: drops the kit's database
   * and closes every connection to the server). Safe to call twice.
   */
  close(): Promise<void>;
}

/**
 * Starts a test server; close it when done (e.g. in `afterAll`). On a Node.js older than the
 * server needs, it rejects with one line that says so (the server's dependencies would crash);
 * so does a PostgreSQL server that cannot be used (unreachable, credentials refused, a user
 * without `CREATEDB`): one line that names the setting (`databaseUrl` or
 * `MARKETPLACE_TEST_DATABASE_URL`). A `helpersKey` under 32 characters is a `RangeError`.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { helpersKey } = options;
  // The server would refuse it naming its own setting, MARKETPLACE_TEST_HELPERS_KEY.
  if (helpersKey !== undefined && helpersKey.length < 32)
    throw new RangeError(
      `startTestServer: helpersKey must be at least 32 characters (got ${helpersKey.length})`,
    );
  const { nodeTooOld } = await loadServer(() => import('@app/server/node-version'));
  const tooOld = nodeTooOld('@app/testing');
  if (tooOld) throw new Error(tooOld);
  // A URL that cannot be right is refused before the server's modules are imported (a second),
  // read by the server's own reading of DATABASE_URL, a module of its own.
  const { parsePostgresUrl } = await loadServer(() => import('@app/server/postgres-url'));
  const database = chooseDatabase(options, parsePostgresUrl);
  const { start } = await loadServer(() => import('./server.js'));
  return start(options, database);
}

/**
 * What a CommonJS loader that cannot load an ES module throws: `require()` of one where Node's
 * require(esm) is off or the loader has none (jest without `--experimental-vm-modules`), and
 * `import()` in a `vm` script (jest's modules) without that flag.
 */
const NO_ES_MODULES = new Set(['ERR_REQUIRE_ESM', 'ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG']);

/**
 * Loads the server (an ES module only, as its ORM is) when a start asks for it, not when the kit is
 * loaded: the kit's CommonJS build loads it, which jest without `--experimental-vm-modules`
 * refuses. Such a start then rejects with one line that says what to run, not with the loader's
 * error pointing into the server's files.
 */
async function loadServer<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!NO_ES_MODULES.has((error as { code?: unknown }).code as string)) throw error;
    throw new Error(
      '@app/testing cannot load @app/server, an ES module, from CommonJS: under jest, run it with NODE_OPTIONS=--experimental-vm-modules (README, "Jest")',
    );
  }
}
