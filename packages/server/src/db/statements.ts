import { type messages, type PGlite, protocol, types } from '@electric-sql/pglite';
import type { MetadataStorage } from '@mikro-orm/core';
import type { Orm } from './database.js';

/*
 * Hot-path reads sent straight to the driver the ORM already holds, as named prepared statements
 * (parsed and planned once per connection, their values bound, never inlined into the SQL text),
 * on PostgreSQL and on PGlite alike. The ORM's query builder and entity hydration stay for
 * everything else. Every statement is reported to the ORM's logger like the ORM's own, so the
 * round-trip tests count them.
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

type RowMapper = (row: Row) => object;
type Parser = (text: string) => unknown;
/** Reads one value: a column's text (null for SQL NULL), or an entity's property from a row. */
type Step = (value: never) => unknown;
/** Makes an object of `source`, each property read by its step (see `makerOf`). */
type Maker<Source> = (source: Source, steps: readonly Step[]) => Row;

const makers = new Map<string, Maker<never>>();

/**
 * The maker of objects with these properties, each read from `source[from]` by the step of the
 * same index, generated once as one object literal. V8 then gives every object its final shape at
 * once, and each property its own call site; an object grown from `{}` one computed key at a time
 * took 8 times as long. A page of a list makes 20 rows of 25 columns, then 20 entities of 17 (`pg`
 * itself spreads a prebuilt object for the same reason). The names are our statements' and
 * entities' own, and go into the code as JSON literals.
 */
function makerOf<Source>(
  properties: ReadonlyArray<readonly [name: string, from: string | number]>,
): Maker<Source> {
  const key = JSON.stringify(properties);
  let made = makers.get(key);
  if (!made) {
    // A literal's quoted `__proto__` key sets the prototype rather than a property.
    if (properties.some(([name]) => name === '__proto__'))
      throw new Error('No property may be named __proto__');
    const code = properties.map(
      ([name, from], i) => `${JSON.stringify(name)}: s[${i}](t[${JSON.stringify(from)}])`,
    );
    made = new Function('t', 's', `return { ${code.join(', ')} };`) as Maker<never>;
    makers.set(key, made);
  }
  return made as Maker<Source>;
}

type Texts = ReadonlyArray<string | null>;

/** A statement's result columns: the maker of a row of their texts, and a step per column. */
interface Columns {
  make: Maker<Texts>;
  steps: Step[];
}

/** The columns of a row description, each read by `parserOf` its type (SQL NULL as null). */
function columnsOf(
  fields: ReadonlyArray<{ name: string; dataTypeID: number }>,
  parserOf: (oid: number) => Parser,
): Columns {
  return {
    make: makerOf<Texts>(fields.map(({ name }, i) => [name, i])),
    steps: fields.map(({ dataTypeID }) => {
      const parse = parserOf(dataTypeID);
      return (text: string | null) => (text == null ? null : parse(text));
    }),
  };
}

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

/** Compiles, once per entity, the mapping of a row's columns to the entity's properties. */
function rowMapper(orm: Orm, entity: string): RowMapper {
  const platform = orm.em.getPlatform();
  const properties = orm
    .getMetadata()
    .getByClassName(entity)
    .props.filter((prop) => prop.fieldNames?.length === 1);
  const steps = properties.map((prop): ((value: unknown) => unknown) => {
    if (prop.kind === 'm:1') return (id) => ({ id });
    if (prop.runtimeType === 'Date')
      // The ORM's connections return timestamps as text; the runners here read some already.
      return (value) =>
        value == null || value instanceof Date
          ? value
          : (utcTimestamp(value as string) ?? platform.parseDate(value as string));
    const type = prop.customType;
    if (type) return (value) => type.convertToJSValue(value, platform);
    return (value) => value;
  });
  const make = makerOf<Row>(properties.map((prop) => [prop.name as string, prop.fieldNames[0] as string]));
  return (row) => make(row, steps);
}

/*
 * On PostgreSQL, `pg` sends every run of a named statement as bind + describe + execute + sync,
 * and parses the row description that comes back (its fields, and a parser for each) every time.
 * The result's columns of a named statement cannot change on a connection (PostgreSQL refuses to
 * run it rather than change them), so a run here asks for the description only the first time a
 * connection runs the statement, and keeps the fields and their parsers for the connection's
 * later runs: bind + execute + sync. It goes through `pg`'s extension point for custom queries
 * (an object with `submit`, as `pg-cursor` is), on a client of the pool the ORM holds.
 */

/** The parts of `pg`'s connection a custom query uses (those `pg-cursor` uses). */
interface PgConnection {
  stream: { cork?(): void; uncork?(): void };
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  parse(message: { name: string; text: string }): void;
  bind(message: { statement: string; values: (string | null)[] }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal: string }): void;
  sync(): void;
}

interface PgClient {
  query(query: PgRun): void;
  getTypeParser(oid: number, format: 'text'): (text: string) => unknown;
  release(error?: Error | boolean): void;
}

interface PgPool {
  totalCount: number;
  connect(): Promise<PgClient>;
}

/** The described result columns of each statement, per connection (a statement is per connection). */
const describedOn = new WeakMap<PgConnection, Map<string, Columns>>();

/**
 * A value as the text the bind message carries: the kinds the hot reads bind, anything else
 * refused before a byte is sent (`pg`'s own `prepareValue` is not in its typed API).
 */
function bindValue(value: unknown): string | null {
  if (value == null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
    return String(value);
  if (value instanceof Date) return value.toISOString();
  throw new TypeError(`A prepared statement's value cannot be ${typeof value}`);
}

/** One run of a named statement on a `pg` client (`pg`'s custom-query protocol). */
class PgRun {
  readonly name: string;
  readonly text: string;
  readonly rows: Row[] = [];
  readonly done: Promise<Row[]>;
  /**
   * Called once when the run ends, as `pg`'s own queries call theirs: tracing (the pg
   * instrumentation) wraps it to end the statement's span.
   */
  callback: (error: Error | null, result?: { rows: Row[] }) => void;
  #ended = false;
  #columns: Columns | undefined;
  #failure: Error | undefined;
  #described: Map<string, Columns> | undefined;
  #values: (string | null)[];
  #client: PgClient;

  constructor(client: PgClient, statement: Statement, values: unknown[]) {
    this.name = statement.name;
    this.text = statement.text;
    this.#client = client;
    this.#values = values.map(bindValue);
    let settle!: typeof this.callback;
    this.done = new Promise((resolve, reject) => {
      settle = (error, result) => (error ? reject(error) : resolve(result?.rows ?? []));
    });
    this.callback = settle;
  }

  submit(connection: PgConnection): Error | null {
    let described = describedOn.get(connection);
    if (!described) {
      described = new Map();
      describedOn.set(connection, described);
    }
    this.#described = described;
    this.#columns = described.get(this.name);
    connection.stream.cork?.();
    try {
      if (!connection.parsedStatements[this.name] && !connection.submittedNamedStatements[this.name]) {
        connection.parse({ name: this.name, text: this.text });
        connection.submittedNamedStatements[this.name] = this.text;
      }
      connection.bind({ statement: this.name, values: this.#values });
      if (!this.#columns) connection.describe({ type: 'P', name: '' });
      connection.execute({ portal: '' });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(message: { fields: { name: string; dataTypeID: number }[] }): void {
    this.#columns = columnsOf(message.fields, (oid) => this.#client.getTypeParser(oid, 'text'));
    this.#described?.set(this.name, this.#columns);
  }

  handleDataRow(message: { fields: (string | null)[] }): void {
    if (this.#failure) return;
    const { make, steps } = this.#columns as Columns;
    try {
      this.rows.push(make(message.fields, steps));
    } catch (error) {
      // As `pg` does: the rest of the answer is read, and the run fails when it ends.
      this.#failure = error as Error;
    }
  }

  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}

  handleError(error: Error): void {
    this.#end(error);
  }

  handleReadyForQuery(): void {
    this.#end(this.#failure ?? null);
  }

  #end(error: Error | null): void {
    if (this.#ended) return;
    this.#ended = true;
    this.callback(error, error ? undefined : { rows: this.rows });
  }
}

/** Runs a named statement on a client of the pool; the client goes back to the pool after. */
async function runOnPool(pool: PgPool, statement: Statement, values: unknown[]): Promise<Row[]> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    const run = new PgRun(client, statement, values);
    client.query(run);
    return await run.done;
  } catch (error) {
    failure = error as Error;
    throw error;
  } finally {
    // As the pool's own `query` does: a client whose query failed is not reused.
    client.release(failure);
  }
}

/*
 * PGlite's `query()` has no named statements: each call parses and plans its text again and
 * crosses into WebAssembly six times (parse, describe, bind, describe, execute, sync). Planning
 * the show's statement alone took 0.7 ms there, several times the rest of the request. So a
 * statement is parsed once per PGlite instance (the name lives in its one backend session), and
 * each run is a single bind + execute + sync. The values are serialised and the columns parsed
 * with the instance's own serializers and parsers, as `query()` would. Both of PGlite's locks are
 * held, as `query()` holds them, so a run never lands inside another request's transaction.
 */
interface Prepared {
  paramTypes: number[];
  columns: Columns;
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

/** Runs `fn` as `query()` runs its statement: on an open instance, holding both of its locks. */
async function exclusive<T>(pglite: PGlite, fn: () => Promise<T>): Promise<T> {
  // A closed or closing instance fails here with PGlite's own error, which answers 503.
  await pglite._checkReady();
  return pglite._runExclusiveTransaction(() => pglite._runExclusiveQuery(fn));
}

/** The instance's parser of a type; timestamps as on PostgreSQL (PGlite's reads the years 0 to 99 as 19xx). */
function pgliteParser(pglite: PGlite, dataTypeID: number): Parser {
  if (dataTypeID === types.TIMESTAMPTZ)
    return (text) => utcTimestamp(text) ?? types.parseType(text, dataTypeID, pglite.parsers);
  return (text) => types.parseType(text, dataTypeID, pglite.parsers);
}

function prepare(pglite: PGlite, statement: Statement): Promise<Prepared> {
  let prepared = preparedOf.get(pglite);
  if (!prepared) {
    prepared = new Map();
    preparedOf.set(pglite, prepared);
  }
  let found = prepared.get(statement.name);
  if (!found) {
    const { serialize } = protocol;
    found = exclusive(pglite, async () => {
      const { messages } = await pglite.execProtocol(
        concat([
          serialize.parse({ name: statement.name, text: statement.text }),
          serialize.describe({ type: 'S', name: statement.name }),
          serialize.sync(),
        ]),
        { syncToFs: false },
      );
      let paramTypes: number[] = [];
      let fields: { name: string; dataTypeID: number }[] = [];
      for (const message of messages) {
        if (message.name === 'parameterDescription')
          paramTypes = (message as messages.ParameterDescriptionMessage).dataTypeIDs;
        else if (message.name === 'rowDescription')
          fields = (message as messages.RowDescriptionMessage).fields;
      }
      const out: Prepared = {
        paramTypes,
        columns: columnsOf(fields, (oid) => pgliteParser(pglite, oid)),
      };
      return out;
    });
    const map = prepared;
    const name = statement.name;
    // A statement that failed to parse is not in the session: the next request tries again.
    found.catch(() => map.delete(name));
    prepared.set(statement.name, found);
  }
  return found;
}

async function runPrepared(pglite: PGlite, statement: Statement, values: unknown[]): Promise<Row[]> {
  const { paramTypes, columns } = await prepare(pglite, statement);
  const { serialize } = protocol;
  return exclusive(pglite, async () => {
    const bound = values.map((value, i) => {
      if (value == null) return null;
      const serializer = pglite.serializers[paramTypes[i] as number];
      return serializer ? serializer(value) : String(value);
    });
    const { messages } = await pglite.execProtocol(
      concat([
        serialize.bind({ statement: statement.name, values: bound }),
        serialize.execute({}),
        serialize.sync(),
      ]),
    );
    const rows: Row[] = [];
    for (const message of messages)
      if (message.name === 'dataRow')
        rows.push(columns.make((message as messages.DataRowMessage).fields, columns.steps));
    return rows;
  });
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

/** The prepared-statement runner of an ORM's connection (one per ORM). */
export function statementsOf(orm: Orm): Promise<Statements> {
  let found = cache.get(orm);
  if (!found) {
    found = open(orm);
    cache.set(orm, found);
    found.catch(() => cache.delete(orm));
  }
  return found;
}

async function open(orm: Orm): Promise<Statements> {
  const client = (await orm.em.getConnection().getNativeClient()) as PgPool | PGlite;
  const logger = orm.config.getLogger();
  const log = (text: string) => logger.logQuery({ query: text, level: 'info' });
  if ('totalCount' in client) {
    const pool = client;
    return {
      ...common(orm),
      async run(statement, values) {
        log(statement.text);
        return runOnPool(pool, statement, values);
      },
    };
  }
  const pglite = client;
  return {
    ...common(orm),
    async run(statement, values) {
      log(statement.text);
      return runPrepared(pglite, statement, values);
    },
  };
}
