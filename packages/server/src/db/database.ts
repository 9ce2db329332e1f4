import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { LogContext, Logger, MikroORM, Options } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { PgliteDriver, MikroORM as PgliteORM } from '@mikro-orm/pglite';
import { MikroORM as PostgresORM } from '@mikro-orm/postgresql';
import type { AbstractSqlDriver, SqlEntityManager } from '@mikro-orm/sql';
import pg, { type ClientBase, type PoolConfig } from 'pg';
import { ConfigError, describePostgresUrl, ensureWritableDir } from '../config.js';
import { lockDataDir } from './data-dir-lock.js';
import { causeChain } from './driver-errors.js';
import { entities } from './entities.js';
import { migrations } from './migrations/index.js';
import { parsePostgresUrl, postgresClientUrl } from './postgres-url.js';

export type Orm = MikroORM<AbstractSqlDriver, SqlEntityManager>;
export type Em = SqlEntityManager;

export interface DatabaseOptions {
  /** `postgres://…`, `pglite://memory`, or undefined for PGlite persisted in `dataDir/pglite`. */
  url: string | undefined;
  dataDir: string;
  /**
   * Sees every statement sent (begin/commit included), once it has finished (with the time it
   * took, when MikroORM measured it): for round-trip counts in tests, PGlite's trace spans.
   */
  onQuery?: QueryListener;
  /** An already started PGlite instance to use (tests boot one from a prepared snapshot). */
  pglite?: PGlite;
  /** Size of the PostgreSQL connection pool. */
  poolSize?: number;
  /**
   * `transaction` when the URL goes through a pooler in transaction mode: its sessions are not the
   * server's, so no session setting is made ({@link GENERIC_PLANS}).
   */
  pooler?: 'none' | 'transaction';
}

/**
 * The session setting of the server's own connections: a prepared statement is planned once per
 * connection. PostgreSQL plans a prepared statement anew for each of its first five executions and
 * then keeps doing so whenever the plan for those values looks cheaper than the generic one: for
 * the caller's statement with a page (a lateral join, two branches, a dozen subqueries) on a small
 * list, that meant about 0.45 ms of planning on every request, more than the rest of the request,
 * in the database's process. The generic plan decides what the values change at run time (its
 * one-time filters: which half of the list, whether the page is known; db/pages.ts). MikroORM
 * sends its queries with their values written in, so the setting changes nothing for them.
 *
 * Sent as the first statement of each new connection (`pg`'s pool option `onConnect`), not as
 * a startup option: PgBouncer refuses unknown startup parameters in every pool mode. Not sent
 * behind a pooler in transaction mode, where a `SET` would land on a server connection other
 * clients share: not with the setting, and not once the server finds such a pooler without it
 * (the first 26000/42P05, db/statements.ts: {@link sharedSessions}). Until then, the connections
 * opened have sent it through the pooler (there is no public way to tell PgBouncer from
 * PostgreSQL before: it answers the login itself with PostgreSQL's parameters), and it stays on
 * the server connections it landed on, which serve only PgBouncer's clients of the same user and
 * database, until PgBouncer closes them (docs/deploy.md, "Behind a pooler").
 */
const GENERIC_PLANS = 'set plan_cache_mode = force_generic_plan';

/**
 * `pg`'s pool `onConnect`: awaited before a new connection is handed out, so no statement is queued
 * behind the setting on it (`pg` deprecates that queue). A server that cannot take the setting
 * still answers, each statement planned as before.
 */
const planGenerically = (client: ClientBase): Promise<void> =>
  client.query(GENERIC_PLANS).then(
    () => undefined,
    () => undefined,
  );

/** Statements that wait longer than this for a pooled connection fail, and the request gets a 503. */
const CONNECT_TIMEOUT_MS = 3_000;

/** What is known of each PostgreSQL ORM's pool. */
interface PoolState {
  /** Its `pg` clients, from their creation until they end: see {@link closeDatabase}. */
  clients: Set<pg.Client>;
  /** Whether its sessions are its own, so new connections get {@link GENERIC_PLANS}. */
  ownSessions: boolean;
}

const pools = new WeakMap<Orm, PoolState>();

/**
 * The pool's sessions turned out to be a pooler's, shared with its other clients: new connections
 * get no session setting from now on (called on the switch to unnamed statements).
 */
export function sharedSessions(orm: Orm): void {
  const pool = pools.get(orm);
  if (pool) pool.ownSessions = false;
}

/**
 * The pool's client class (`pg`'s `Client` pool option): `pg.Client`, each instance kept in
 * `clients` from its creation, before it connects, until it ends.
 */
function clientsKeptIn(clients: Set<pg.Client>): new () => pg.Client {
  return class KeptClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      clients.add(this);
      this.once('end', () => clients.delete(this));
    }
  };
}

/**
 * Closes the database once the requests are done (the server's shutdown). Closing the pool alone
 * waits for every connection to come back, and one may never: behind PgBouncer that cannot reach
 * PostgreSQL, a statement waits on its connection for a server connection until PgBouncer's
 * `query_wait_timeout` (120 s by default), long after its request was answered `503` at the
 * request timeout. `serve` was then killed by its shutdown deadline (10 s, exit code 1). No
 * request needs them any more: the connections still held, or still logging in, are ended
 * (`pg`'s `client.end()`, which drops a connection whose statement has not been answered), and
 * the pool closes at once.
 */
export async function closeDatabase(orm: Orm): Promise<void> {
  const closing = orm.close(true);
  for (const client of pools.get(orm)?.clients ?? []) void client.end().catch(() => undefined);
  await closing;
}

export type QueryListener = (sql: string, detail: { tookMs?: number; failed?: boolean }) => void;

class QueryObserver implements Logger {
  constructor(private readonly onQuery: QueryListener) {}
  log() {}
  error() {}
  warn() {}
  logQuery(context: LogContext) {
    if (context.query)
      this.onQuery(context.query, { tookMs: context.took, failed: context.level === 'error' });
  }
  setDebugMode() {}
  isEnabled() {
    return false;
  }
}

/** Opens the database the settings name. Migrations are not run here: see {@link migrate}. */
export async function openDatabase(options: DatabaseOptions): Promise<Orm> {
  const common: Partial<Options> = {
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, snapshot: false, silent: true, transactional: true },
    debug: false,
    ...(options.onQuery && {
      loggerFactory: () => new QueryObserver(options.onQuery as QueryListener),
    }),
  };
  if (options.url?.startsWith('postgres')) {
    const target = parsePostgresUrl(options.url);
    if (typeof target === 'string') throw new ConfigError(`DATABASE_URL ${target}`);
    const pool: PoolState = { clients: new Set(), ownSessions: options.pooler !== 'transaction' };
    const orm = (await PostgresORM.init({
      ...common,
      // The URL's parts as libpq reads them: MikroORM reads its `clientUrl` with `new URL`, which
      // refuses libpq's Unix-socket form and drops its parameters (postgres-url.ts).
      clientUrl: postgresClientUrl(target),
      host: target.host,
      port: target.port,
      user: target.user,
      password: target.password,
      dbName: target.database,
      // Never created here: a missing database is a wrong DATABASE_URL (see checkDatabase).
      ensureDatabase: false,
      pool: { min: 0, max: options.poolSize ?? 10, idleTimeoutMillis: 10_000 },
      driverOptions: {
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        // `sslmode` and the certificates of the URL: MikroORM passes no parameter of its own.
        ...(target.ssl !== undefined && { ssl: target.ssl }),
        ...(pool.ownSessions && {
          onConnect: (client: ClientBase) => (pool.ownSessions ? planGenerically(client) : undefined),
        }),
        Client: clientsKeptIn(pool.clients),
      } satisfies Partial<PoolConfig>,
    } as Options)) as unknown as Orm;
    pools.set(orm, pool);
    return orm;
  }
  if (options.pglite) {
    return (await PgliteORM.init({
      ...common,
      driverOptions: { pglite: options.pglite },
    } as Options)) as unknown as Orm;
  }
  if (options.url === 'pglite://memory') {
    return (await PgliteORM.init({ ...common } as Options)) as unknown as Orm;
  }
  const dir = join(options.dataDir, 'pglite');
  ensureWritableDir(options.dataDir, dir, 'the embedded database');
  lockDataDir(options.dataDir);
  return (await PgliteORM.init({ ...common, dbName: dir } as Options)) as unknown as Orm;
}

/**
 * Refuses, in one line that names `DATABASE_URL`, a PostgreSQL database that does not exist or
 * cannot be reached. Migrating would create a missing database (MikroORM's migrator ensures it),
 * and a typo in the URL would then start the server on an empty production database: the reference
 * server never creates one (decisions §6). Embedded PGlite makes its own and is not checked.
 */
export async function checkDatabase(orm: Orm, url: string | undefined): Promise<void> {
  if (!url?.startsWith('postgres')) return;
  let failure: unknown;
  try {
    await orm.em.getConnection().execute('select 1');
    return;
  } catch (error) {
    failure = error;
  }
  const { host, database } = describePostgresUrl(url);
  const codes = new Set<unknown>();
  let why = '';
  for (const { code, message } of causeChain(failure)) {
    codes.add(code);
    if (typeof message === 'string' && message) why = message.split('\n')[0] ?? why;
  }
  if (codes.has('3D000'))
    throw new ConfigError(
      `DATABASE_URL names database "${database}", which does not exist on ${host}: create it first (the server never creates a production database)`,
    );
  throw new ConfigError(`cannot use the database of DATABASE_URL (${host}/${database}): ${why}`);
}

/**
 * Applies pending migrations; returns the names of those applied. They run in one transaction
 * that first takes a transaction-level advisory lock, so that processes migrating one database at
 * once (replicas starting on a new release, a `migrate` job beside them) run one after the other:
 * the first applies them, the next find none pending. Before, two at once failed, one with
 * `duplicate key value violates unique constraint "pg_type_typname_nsp_index"`. A transaction's
 * lock, not a session's: it holds behind a pooler in transaction mode too. PostgreSQL only.
 */
export async function migrate(orm: Orm): Promise<string[]> {
  // Embedded PGlite has one process (its data directory is locked) and one connection, which the
  // transaction below would hold while the migrator waits for it: no lock there.
  if (orm.em.getDriver() instanceof PgliteDriver) return names(await orm.migrator.up());
  const applied = await orm.em.fork().transactional(async (em) => {
    await em.execute(`select pg_advisory_xact_lock(hashtextextended('marketplace-server migrations', 0))`);
    // The migrations table is read and made in this transaction too (its first creation raced).
    return orm.migrator.up({ transaction: em.getTransactionContext() });
  });
  return names(applied);
}

const names = (migrations: readonly { name: string }[]) => migrations.map((m) => m.name);
