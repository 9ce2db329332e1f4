/**
 * The kit's database on PostgreSQL (`databaseUrl`, `MARKETPLACE_TEST_DATABASE_URL`): a database of
 * each server's own, created on the PostgreSQL server the URL names, migrated, and dropped by
 * `close()`. The database in the URL is only where the kit connects to create and drop it. Each is a
 * copy of a migrated template made once per PostgreSQL server and schema (`mkt_kit_tpl_<hash>`,
 * `buildTemplate`), not migrated at every start.
 *
 * Each kit keeps one connection of its own there for its whole life, and its database's name
 * carries that connection's backend pid (`mkt_kit_<pid>_<random>`): while the connection is open
 * the database is in use. A process killed before `close()` (SIGKILL, a runner's timeout) loses
 * its connection with it, and the next kit that starts, in any process on any machine using that
 * server, drops the databases whose connection is gone. The pid is in the name, not in a comment
 * or a table, so that a database is never seen before its owner is known.
 */
import { randomBytes } from 'node:crypto';
import { migrate, migrationsHash, type Orm, openDatabase } from '@app/server';
import { type PostgresTarget, postgresAddress } from '@app/server/postgres-url';
import { types as pgliteTypes } from '@electric-sql/pglite';
import pg from 'pg';
import { withDatabase } from './database-url.js';

/** The prefix of the databases the kit makes; no other database is ever dropped. */
export const DATABASE_PREFIX = 'mkt_kit_';

/** How long the kit waits for PostgreSQL to accept its connection. */
const CONNECT_TIMEOUT_MS = 10_000;

export interface KitDatabase {
  orm: Orm;
  /** The URL of the kit's own database (the server's `DATABASE_URL`). */
  url: string;
  /** `TestServer.sql()`: the rows of `query` (`?` placeholders), their values as PGlite reads them. */
  sql(query: string, params: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /** Closes the ORM, drops the database, closes the kit's connection; resolves once all is done. */
  close(): Promise<void>;
}

export interface PostgresOptions {
  /** The setting the URL came from, named in every error: `databaseUrl` or the variable's name. */
  setting: string;
  /** The URL's parts, as the server reads them (`chooseDatabase`). */
  target: PostgresTarget;
  dataDir: string;
  poolSize: number;
  pooler: 'none' | 'transaction';
}

/** Creates, migrates and opens a database of the kit's own on the PostgreSQL server of `url`. */
export async function openPostgres(url: string, options: PostgresOptions): Promise<KitDatabase> {
  const target = describeTarget(options.target, options.setting);
  const admin = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: '@app/testing',
  });
  // A connection cut while the kit runs (a restarted server) emits 'error' on an idle client; with
  // no listener, that would end the test process. `close()` then drops through a new connection.
  admin.on('error', () => {});
  try {
    await admin.connect();
  } catch (error) {
    await admin.end().catch(() => {});
    throw connectError(error, target);
  }

  let name: string | undefined;
  let orm: Orm | undefined;
  let reader: Promise<pg.Client> | undefined;
  // Every step is taken even when one before it failed (PostgreSQL gone mid-run): what is local
  // (the pools, the connections) is always closed. A database that could not be dropped is said
  // in one line; its name's pid is no backend once `admin` is closed, so the next start drops it.
  const drop = async () => {
    const closedOrm = await settle(orm?.close(true));
    await (await reader?.catch(() => undefined))?.end().catch(() => {});
    const dropped = name ? await settle(dropDatabase(admin, url, name)) : undefined;
    await admin.end().catch(() => {});
    if (dropped)
      throw new Error(
        `${target.label}: close() could not drop the server's database ${name} (the next start on that PostgreSQL server drops it): ${firstLine(dropped.error)}`,
      );
    if (closedOrm) throw closedOrm.error;
  };
  try {
    const { rows } = await admin.query<{ pid: number }>('select pg_backend_pid() as pid');
    await dropLeftovers(admin);
    const pid = rows[0]?.pid as number;
    const created = databaseName(pid);
    const template = `${TEMPLATE_PREFIX}${migrationsHash()}`;
    let copied = await copyTemplate(admin, created, template);
    if (copied === 'missing') {
      await buildTemplate(admin, url, template, databaseName(pid), options);
      copied = await copyTemplate(admin, created, template);
    }
    // No template to copy (one being built failed, or a session is connected to it, or another user
    // made it): created empty and migrated, as every start was before the template.
    if (copied !== 'copied')
      await admin.query(`create database "${created}"`).catch((error: unknown) => {
        throw createError(error, target);
      });
    name = created;
    const kitUrl = withDatabase(url, created);
    orm = await openDatabase({
      url: kitUrl,
      dataDir: options.dataDir,
      poolSize: options.poolSize,
      pooler: options.pooler,
    });
    // A copy of the template has every migration already: this only checks that it has.
    await migrate(orm).catch((error: unknown) => {
      throw new Error(`${target.label}: migrating the kit's database ${created} failed: ${firstLine(error)}`);
    });
    const platform = orm.em.getPlatform();
    const sql = async (query: string, params: readonly unknown[]) => {
      reader ??= openReader(kitUrl).catch((error: unknown) => {
        reader = undefined;
        throw error;
      });
      const client = await reader;
      // `?` placeholders filled in as the ORM fills them (PGlite's `sql()` runs through the ORM);
      // its errors are the ORM's, as there.
      const statement = platform.formatQuery(query, [...params]);
      try {
        return (await client.query<Record<string, unknown>>(statement)).rows;
      } catch (error) {
        throw platform.getExceptionConverter().convertException(error as Error);
      }
    };
    return { orm, url: kitUrl, sql, close: drop };
  } catch (error) {
    // The start's own error is the one to see; a database left is dropped by the next start.
    await drop().catch(() => {});
    throw error;
  }
}

/**
 * A connection to the kit's database for `sql()` whose values are read as PGlite reads them: a
 * `count(*)` (int8) is a number (a `BigInt` beyond 2^53), a timestamp a `Date`, a date a `Date` at
 * UTC midnight, an array of them an array of those. Through the server's pool (the ORM's), int8 and
 * timestamps are strings on PostgreSQL and numbers and Dates on PGlite, so a suite moved to
 * PostgreSQL with `MARKETPLACE_TEST_DATABASE_URL` would fail where nothing else changed. PGlite's
 * own parsers (its public `types`) are used, and its arrays are made as PGlite makes them: from
 * `pg_type`, each array type parsing its elements with its element type's parser. Opened on the
 * first `sql()`, closed by `close()`.
 */
async function openReader(url: string): Promise<pg.Client> {
  const arrays = new Map<number, number>();
  const parse = (oid: number) => (text: string) => {
    const element = arrays.get(oid);
    return element === undefined
      ? pgliteTypes.parseType(text, oid)
      : pgliteTypes.arrayParser(text, (item: string) => pgliteTypes.parseType(item, element), oid);
  };
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: '@app/testing',
    types: { getTypeParser: parse as unknown as pg.CustomTypesConfig['getTypeParser'] },
  });
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ element: number; array: number }>(
      `select b.oid::int as element, b.typarray::int as array
       from pg_catalog.pg_type a join pg_catalog.pg_type b on b.oid = a.typelem
       where a.typcategory = 'A' group by b.oid, b.typarray`,
    );
    for (const { element, array } of rows) arrays.set(array, element);
    return client;
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
}

/** A name for a database of the kit whose connection has the backend pid `pid`. */
const databaseName = (pid: number) => `${DATABASE_PREFIX}${pid}_${randomBytes(5).toString('hex')}`;

/**
 * The migrated template the kit's databases are copied from (`CREATE DATABASE … TEMPLATE …`),
 * one per PostgreSQL server and schema: `mkt_kit_tpl_<hash of the migrations>`, so a server with
 * other migrations makes (and copies) its own. Its name does not match the leftovers' pattern.
 */
export const TEMPLATE_PREFIX = `${DATABASE_PREFIX}tpl_`;

/**
 * Creates `name` as a copy of `template`: `'missing'` when there is none, `'refused'` when
 * PostgreSQL would not copy it (a session connected to it, for which it waits 5 s first; another
 * user's, which this one may not copy; no `CREATEDB`, which the plain create then says).
 *
 * A template is never dropped under a copy: `CREATE DATABASE` holds a lock on its template from
 * its look-up to its end, which `DROP DATABASE` waits for; a copy that comes after a drop finds
 * none (`'missing'`) and the template is made again.
 */
async function copyTemplate(
  admin: pg.Client,
  name: string,
  template: string,
): Promise<'copied' | 'missing' | 'refused'> {
  try {
    await admin.query(`create database "${name}" template "${template}"`);
    return 'copied';
  } catch (error) {
    return (error as { code?: unknown }).code === '3D000' ? 'missing' : 'refused';
  }
}

/**
 * Makes the template: a database of the kit's (`building`, named after this kit's connection so
 * that a process killed meanwhile leaves a leftover the next start drops), migrated, its
 * connections closed, then renamed to `template`. Two kits that build at once both migrate; the
 * first rename wins and the other drops its own. The one that made it then drops the templates of
 * other migrations (an older schema of the server; best effort, and never one a session is
 * connected to or another user owns), so they do not pile up. Best effort throughout: a start whose
 * build fails creates and migrates its database as before.
 */
async function buildTemplate(
  admin: pg.Client,
  url: string,
  template: string,
  building: string,
  options: PostgresOptions,
): Promise<void> {
  try {
    await admin.query(`create database "${building}"`);
  } catch {
    return;
  }
  try {
    const orm = await openDatabase({
      url: withDatabase(url, building),
      dataDir: options.dataDir,
      poolSize: 2,
      pooler: options.pooler,
    });
    try {
      await migrate(orm);
    } finally {
      await orm.close(true);
    }
    // PostgreSQL waits (up to 5 s) for the closed connections' backends to end before renaming.
    await admin.query(`alter database "${building}" rename to "${template}"`);
  } catch {
    // 42P04: another kit made the template meanwhile; anything else: no template this time.
    await admin.query(`drop database if exists "${building}" with (force)`).catch(() => {});
    return;
  }
  const { rows } = await admin.query<{ datname: string }>(
    'select datname from pg_database where datname ~ $1 and datname <> $2',
    [`^${TEMPLATE_PREFIX}[0-9a-f]{16}$`, template],
  );
  for (const { datname } of rows) await admin.query(`drop database if exists "${datname}"`).catch(() => {});
}

/** Waits for `promise`; resolves to its error, wrapped (`undefined` when it fulfilled). */
async function settle(promise: Promise<unknown> | undefined): Promise<{ error: unknown } | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return { error };
  }
}

/**
 * Drops the kit's database with whatever connections are still open on it. Through the kit's
 * own connection, or a new one when that was cut meanwhile.
 */
async function dropDatabase(admin: pg.Client, url: string, name: string): Promise<void> {
  const statement = `drop database if exists "${name}" with (force)`;
  try {
    await admin.query(statement);
  } catch {
    const again = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    again.on('error', () => {});
    try {
      await again.connect();
      await again.query(statement);
    } finally {
      await again.end().catch(() => {});
    }
  }
}

/**
 * Drops the kit's databases whose kit is gone: those whose connection (the pid in the name) is no
 * longer a backend of the server, and which no connection uses. Without `force`: PostgreSQL then
 * refuses to drop a database that any session is connected to, so a kit that is still running but
 * lost its own connection (an idle-session timeout, a proxy's idle timeout, `pg_terminate_backend`)
 * keeps its database while its server holds a connection to it. Best effort: a database another
 * kit drops at the same moment, one in use, or one that another user made (only its owner may drop
 * it), is left to others.
 */
async function dropLeftovers(admin: pg.Client): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>(
    // `kit.datname`: pg_stat_activity has a `datname` of its own, which a bare name would read.
    `select kit.datname from pg_database kit
     where kit.datname ~ $1
       and not exists (select 1 from pg_stat_activity a where a.pid = substring(kit.datname from $2)::int)`,
    [`^${DATABASE_PREFIX}[0-9]{1,9}_[0-9a-f]+$`, `^${DATABASE_PREFIX}([0-9]{1,9})_`],
  );
  for (const { datname } of rows) await admin.query(`drop database if exists "${datname}"`).catch(() => {});
}

interface Target {
  /** `databaseUrl (PostgreSQL at 127.0.0.1:5432 as postgres)`: no password, ever. */
  label: string;
  user: string;
  database: string;
}

function describeTarget(parts: PostgresTarget, setting: string): Target {
  const user = parts.user || process.env.PGUSER || 'the default user';
  const label = `${setting} (PostgreSQL at ${postgresAddress(parts)} as ${user})`;
  return { label, user, database: parts.database };
}

/** The first line of an error's message, or of its first inner error's (Node's `AggregateError`). */
function firstLine(error: unknown): string {
  const { message, errors, code } = error as { message?: unknown; errors?: unknown; code?: unknown };
  if (typeof message === 'string' && message.trim()) return message.trim().split('\n')[0] as string;
  if (Array.isArray(errors) && errors.length > 0) return firstLine(errors[0]);
  return typeof code === 'string' ? code : String(error);
}

/** One line that names the setting and says what to change, for a connection PostgreSQL refused. */
function connectError(error: unknown, target: Target): Error {
  const { code } = error as { code?: unknown };
  const why = firstLine(error);
  switch (code) {
    case '28P01':
    case '28000':
      return new Error(`${target.label}: PostgreSQL refused the credentials: ${why}`);
    case '3D000':
      return new Error(
        `${target.label}: database "${target.database}" does not exist: the URL's database is only where the kit connects to create a database of its own; name one that exists (e.g. postgres)`,
      );
    default:
      return new Error(`${target.label}: cannot connect: ${why}`);
  }
}

function createError(error: unknown, target: Target): Error {
  if ((error as { code?: unknown }).code === '42501')
    return new Error(
      `${target.label}: user "${target.user}" may not create databases, and the kit makes one per server: grant it (ALTER ROLE "${target.user}" CREATEDB) or use a user that has it`,
    );
  return new Error(`${target.label}: cannot create the kit's database: ${firstLine(error)}`);
}
