import type { messages, PGlite, QueryOptions, Results } from '@electric-sql/pglite';
import { protocol, types } from '@electric-sql/pglite';
import type { MetadataStorage } from '@mikro-orm/core';
import type { Pool, QueryConfig, QueryResult } from 'pg';
import { type Orm, sharedSessions } from './database.js';
import { lostPreparedStatement } from './driver-errors.js';

/*
 * Hot-path reads sent straight to the driver the ORM already holds (MikroORM's public
 * `getConnection().getNativeClient()`), through the drivers' public APIs only (decisions.md §6):
 * on PostgreSQL, the pool's `query` with a named query config (`pg` parses and plans a named
 * statement once per connection, then binds and executes it); on PGlite, a statement parsed once
 * per instance with `execProtocol` inside `runExclusive` (below), never inside another request's
 * transaction.
 * Values are bound, never inlined into the SQL text. The ORM's query builder and entity
 * hydration stay for everything else. Every statement is reported to the ORM's logger like the
 * ORM's own, so the round-trip tests count them.
 *
 * `named: false` (`MARKETPLACE_DATABASE_POOLER=transaction`, docs/deploy.md "Behind a pooler") sends
 * every statement unnamed: a pooler in transaction mode gives each transaction whichever server
 * connection is free, so a statement prepared on one is missing on the next. Without the
 * setting, the first statement that meets such a pooler turns the runner unnamed (see `open`).
 */

/** A statement: a name unique per text (the prepared statement's), and its `$n`-numbered text. */
export interface Statement {
  name: string;
  text: string;
}

export type Row = Record<string, unknown>;

export interface Statements {
  run(statement: Statement, values: unknown[]): Promise<Row[]>;
  /** The entities' metadata (table and column names for statements built from an entity). */
  readonly metadata: MetadataStorage;
  /**
   * Rows of an entity's table as plain objects shaped like the entity (its property names, dates
   * as `Date`, a many-to-one as `{ id }`), for presenting: no hydration, no identity map.
   */
  toEntities<T>(entity: string, rows: Row[]): T[];
}

export interface StatementsOptions {
  /** Prepared (named) statements; false behind a pooler in transaction mode. Default true. */
  named?: boolean;
  /**
   * Told once, with the error, when a named statement met a pooler the runner was not told of
   * and the runner went unnamed for good (see {@link open}).
   */
  onUnnamed?: (error: unknown) => void;
}

type RowMapper = (row: Row) => object;

/**
 * A timestamp read from PostgreSQL's UTC text. It is a `Date`, and it keeps the text it was read
 * from, so writing it back in the wire's form (`toISOString`, and `toJSON` through it) is a few
 * slices of that text instead of a conversion: a page of 20 items writes 40 of them. A date
 * changed after it was read converts as any `Date` does.
 */
class ReadTimestamp extends Date {
  readonly #time: number;
  readonly #text: string;

  constructor(time: number, text: string) {
    super(time);
    this.#time = time;
    this.#text = text;
  }

  override toISOString(): string {
    if (this.getTime() !== this.#time) return super.toISOString();
    const text = this.#text;
    // `2026-11-23 10:00:00.123+00`; PostgreSQL leaves out the fraction's trailing zeros.
    if (text.length === 26) return `${text.slice(0, 10)}T${text.slice(11, 23)}Z`;
    const fraction = text.length > 22 ? text.slice(20, -3) : '';
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${`${fraction}000`.slice(0, 3)}Z`;
  }
}

/** The number of `count` digits at `at` in `text`, or -1 where one is not a digit. */
function digits(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * PostgreSQL's text of a UTC `timestamptz` (`2026-11-23 10:00:00.123456+00`, the fraction
 * optional, 1 to 6 digits) as a Date, to the millisecond; null for any other text (another time
 * zone, a year after 9999, BC, `infinity`), which the general parser reads. Read character by
 * character: a page's 40 timestamps are a hot path.
 */
function utcTimestamp(text: string): Date | null {
  const length = text.length;
  if (length < 22 || length > 29 || length === 23 || !text.endsWith('+00')) return null;
  if (text[4] !== '-' || text[7] !== '-' || text[10] !== ' ' || text[13] !== ':' || text[16] !== ':')
    return null;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hours = digits(text, 11, 2);
  const minutes = digits(text, 14, 2);
  const seconds = digits(text, 17, 2);
  let ms = 0;
  if (length > 22) {
    const count = length - 23;
    const fraction = digits(text, 20, count);
    if (text[19] !== '.' || fraction < 0) return null;
    // Truncated to the millisecond, as the general parser does.
    ms = count > 3 ? Math.trunc(fraction / 10 ** (count - 3)) : fraction * 10 ** (3 - count);
  }
  if (year < 0 || month < 1 || day < 1 || hours < 0 || minutes < 0 || seconds < 0) return null;
  let time = Date.UTC(year, month - 1, day, hours, minutes, seconds, ms);
  // Date.UTC reads the years 0 to 99 as 1900 to 1999 (and so does the ORM's general parser).
  if (year < 100) time = new Date(time).setUTCFullYear(year);
  return new ReadTimestamp(time, text);
}

/**
 * Compiles, once per entity, the mapping of a row's columns to the entity's properties. Each
 * entity object is a copy of one template with every property already in place (as `pg` makes
 * its rows), so all have one shape from the start, then each property is read by its step.
 */
function rowMapper(orm: Orm, entity: string): RowMapper {
  const platform = orm.em.getPlatform();
  const properties = orm
    .getMetadata()
    .getByClassName(entity)
    .props.filter((prop) => prop.fieldNames?.length === 1);
  const steps = properties.map((prop): ((value: unknown) => unknown) => {
    if (prop.kind === 'm:1') return (id) => ({ id });
    if (prop.runtimeType === 'Date')
      // The ORM's PostgreSQL connections return timestamps as text; PGlite's runs read Dates.
      return (value) =>
        value == null || value instanceof Date
          ? value
          : (utcTimestamp(value as string) ?? platform.parseDate(value as string));
    const type = prop.customType;
    if (type) return (value) => type.convertToJSValue(value, platform);
    return (value) => value;
  });
  const names = properties.map((prop) => prop.name as string);
  const fields = properties.map((prop) => prop.fieldNames[0] as string);
  // Assigning `__proto__` would set the prototype rather than a property.
  if (names.includes('__proto__')) throw new Error('No property may be named __proto__');
  const template: Row = Object.fromEntries(names.map((name) => [name, undefined]));
  return (row) => {
    const out: Row = { ...template };
    for (let i = 0; i < names.length; i++)
      out[names[i] as string] = (steps[i] as (value: unknown) => unknown)(row[fields[i] as string]);
    return out;
  };
}

/** Runs a statement on the pool: named (prepared once per connection) unless behind a pooler. */
async function runOnPool(
  pool: Pool,
  statement: Statement,
  values: unknown[],
  named: boolean,
): Promise<Row[]> {
  const query: QueryConfig = named
    ? { name: statement.name, text: statement.text, values }
    : { text: statement.text, values };
  const result: QueryResult<Row> = await pool.query<Row>(query);
  return detached(result.rows);
}

/**
 * A driver's array of rows, emptied into a new one of ours. V8 may make such an array straight in
 * the old generation: it tenures an allocation site whose objects all outlived a young collection,
 * as `pg`'s `Result` literal `rows = []` did after a server's first requests. Every row pushed
 * into a tenured array then outlived each young collection, with the values parsed for it, until
 * the next full one: a server answering kept pages promoted 0.5–1.2 MB per collection
 * (docs/performance-log.md, "The rows that survived"). Emptied, `pg`'s array points at none.
 */
function detached(rows: Row[]): Row[] {
  return rows.splice(0);
}

/**
 * PGlite's parser of `timestamptz` for these runs: PostgreSQL's UTC text read by
 * {@link utcTimestamp} (PGlite's own reads the years 0 to 99 as 19xx), any other text by the
 * instance's parser.
 */
function timestampParser(pglite: PGlite): (text: string, typeId?: number) => unknown {
  const fallback = pglite.parsers[types.TIMESTAMPTZ];
  return (text, typeId) =>
    utcTimestamp(text) ?? (fallback ? fallback(text, typeId) : types.parseType(text, types.TIMESTAMPTZ));
}

/*
 * On PGlite, `query()` parses and plans its text on every call (0.7 ms for the show's statement,
 * several times the rest of the request) and crosses into WebAssembly six times. So a statement
 * is parsed once per PGlite instance (its name lives in the one backend session) and each run is
 * one bind + execute + sync, all with PGlite's public API: `execProtocol` with the package's own
 * `protocol.serialize`, inside `runExclusive` (PGlite's documented way to use `execProtocol`: no
 * other query runs meanwhile). `runExclusive` does not wait for a transaction another caller has
 * open between its queries, so a run that finds one (`isInTransaction()`) does not run there: it
 * goes through `query()`, which waits for that transaction to end.
 */
interface Prepared {
  paramTypes: number[];
  names: string[];
  parsers: Array<(text: string) => unknown>;
  template: Row;
}

const preparedOf = new WeakMap<PGlite, Map<string, Promise<Prepared>>>();

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Runs `fn` alone on an open instance; undefined when a transaction is open (see above). */
async function exclusive<T>(pglite: PGlite, fn: () => Promise<T>): Promise<T | undefined> {
  // PGlite's own message, which answers 503 (plugins/availability.ts).
  if (pglite.closed) throw new Error('PGlite is closed');
  return pglite.runExclusive(async () => (pglite.isInTransaction() ? undefined : fn()));
}

/** The instance's parser of a type; timestamps as on PostgreSQL (see {@link timestampParser}). */
function pgliteParser(pglite: PGlite, dataTypeID: number): (text: string) => unknown {
  if (dataTypeID === types.TIMESTAMPTZ) return timestampParser(pglite);
  const parse = pglite.parsers[dataTypeID];
  return parse ? (text) => parse(text, dataTypeID) : (text) => text;
}

function prepare(pglite: PGlite, statement: Statement): Promise<Prepared | undefined> {
  let prepared = preparedOf.get(pglite);
  if (!prepared) {
    prepared = new Map();
    preparedOf.set(pglite, prepared);
  }
  const found = prepared.get(statement.name);
  if (found) return found;
  const { serialize } = protocol;
  const parsing = exclusive(pglite, async () => {
    const { messages: answer } = await pglite.execProtocol(
      concat([
        // The embedded database's one session: planned once, as on PostgreSQL (db/database.ts).
        serialize.query('set plan_cache_mode = force_generic_plan'),
        serialize.parse({ name: statement.name, text: statement.text }),
        serialize.describe({ type: 'S', name: statement.name }),
        serialize.sync(),
      ]),
      { syncToFs: false },
    );
    let paramTypes: number[] = [];
    let fields: { name: string; dataTypeID: number }[] = [];
    for (const message of answer) {
      if (message.name === 'parameterDescription')
        paramTypes = (message as messages.ParameterDescriptionMessage).dataTypeIDs;
      else if (message.name === 'rowDescription') fields = (message as messages.RowDescriptionMessage).fields;
    }
    const names = fields.map((field) => field.name);
    if (names.includes('__proto__')) throw new Error('No column may be named __proto__');
    const out: Prepared = {
      paramTypes,
      names,
      parsers: fields.map((field) => pgliteParser(pglite, field.dataTypeID)),
      template: Object.fromEntries(names.map((name) => [name, null])),
    };
    return out;
  });
  const map = prepared;
  const name = statement.name;
  // Not parsed (it failed, or a transaction was open): the next run tries again.
  const kept = parsing.then((out) => {
    if (!out) map.delete(name);
    return out;
  });
  kept.catch(() => map.delete(name));
  prepared.set(name, kept as Promise<Prepared>);
  return kept;
}

async function runOnPglite(
  pglite: PGlite,
  statement: Statement,
  values: unknown[],
  parsers: QueryOptions['parsers'],
): Promise<Row[]> {
  const prepared = await prepare(pglite, statement);
  const rows =
    prepared &&
    (await exclusive(pglite, async () => {
      const { paramTypes, names, parsers: columnParsers, template } = prepared;
      const bound = values.map((value, i) => {
        if (value == null) return null;
        const serializer = pglite.serializers[paramTypes[i] as number];
        return serializer ? (serializer(value) as string) : String(value);
      });
      const { serialize } = protocol;
      const { messages: answer } = await pglite.execProtocol(
        concat([
          serialize.bind({ statement: statement.name, values: bound }),
          serialize.execute({}),
          serialize.sync(),
        ]),
      );
      const out: Row[] = [];
      for (const message of answer) {
        if (message.name !== 'dataRow') continue;
        const texts = (message as messages.DataRowMessage).fields;
        const row: Row = { ...template };
        for (let i = 0; i < names.length; i++) {
          const text = texts[i];
          row[names[i] as string] = text == null ? null : (columnParsers[i] as (t: string) => unknown)(text);
        }
        out.push(row);
      }
      return out;
    }));
  if (rows) return rows;
  // A transaction is open on the instance's one session: `query()` waits for it to end.
  const result: Results<Row> = await pglite.query<Row>(statement.text, values, { parsers });
  return result.rows;
}

const cache = new WeakMap<Orm, Promise<Statements>>();

/** The shared parts of both drivers' runners. */
function common(orm: Orm): Pick<Statements, 'metadata' | 'toEntities'> {
  const mappers = new Map<string, RowMapper>();
  return {
    metadata: orm.getMetadata(),
    toEntities<T>(entity: string, rows: Row[]): T[] {
      let mapper = mappers.get(entity);
      if (!mapper) {
        mapper = rowMapper(orm, entity);
        mappers.set(entity, mapper);
      }
      return rows.map(mapper) as T[];
    },
  };
}

/**
 * The statement runner of an ORM's connection (one per ORM; the options of its first call
 * count).
 */
export function statementsOf(orm: Orm, options: StatementsOptions = {}): Promise<Statements> {
  let found = cache.get(orm);
  if (!found) {
    found = open(orm, options.named ?? true, options.onUnnamed);
    cache.set(orm, found);
    found.catch(() => cache.delete(orm));
  }
  return found;
}

/*
 * Behind a pooler in transaction mode that the server was not told of, a named statement meets
 * server connections that lack its preparation ("prepared statement … does not exist", 26000) or
 * that another client prepared it on ("… already exists", 42P05): most requests failed. The first
 * such error turns the pool's runner unnamed for good, and stops the planning `SET` of its new
 * connections, as the setting would, and is told once
 * (`onUnnamed`: the app logs a warning naming the setting). The statement that met it is run
 * again, unnamed, and its request answered: that is safe. `pg` sends a run as Parse (when it has
 * not parsed the name on that connection), Bind, Describe, Execute and Sync at once; the error is
 * the Parse's (42P05) or the Bind's (26000), and the server skips everything after an error until
 * the Sync, so nothing of the statement ran. The pool's `query` runs it on a connection of its own,
 * outside any transaction (the ORM's transactions hold their connections), so the error aborted
 * only the statement's implicit transaction, and the pooler ends it there too. The second run is
 * reported to the ORM's logger like the first: it is a round trip.
 */
async function open(
  orm: Orm,
  startNamed: boolean,
  onUnnamed?: (error: unknown) => void,
): Promise<Statements> {
  const client = (await orm.em.getConnection().getNativeClient()) as Pool | PGlite;
  const logger = orm.config.getLogger();
  const log = (text: string) => logger.logQuery({ query: text, level: 'info' });
  if ('totalCount' in client) {
    const pool = client;
    let named = startNamed;
    const unnamedAgain = (error: unknown, statement: Statement, values: unknown[]): Promise<Row[]> => {
      if (!lostPreparedStatement(error)) throw error;
      if (named) {
        named = false;
        // Nor a session setting on the pool's next connections (db/database.ts).
        sharedSessions(orm);
        onUnnamed?.(error);
      }
      log(statement.text);
      return runOnPool(pool, statement, values, false);
    };
    return {
      ...common(orm),
      async run(statement, values) {
        log(statement.text);
        if (!named) return runOnPool(pool, statement, values, false);
        return runOnPool(pool, statement, values, true).catch((error: unknown) =>
          unnamedAgain(error, statement, values),
        );
      },
    };
  }
  const pglite = client;
  const parsers = { [types.TIMESTAMPTZ]: timestampParser(pglite) };
  return {
    ...common(orm),
    async run(statement, values) {
      log(statement.text);
      return runOnPglite(pglite, statement, values, parsers);
    },
  };
}
