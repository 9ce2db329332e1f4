import type { MetadataStorage } from '@mikro-orm/core';
import type { Orm } from './database.js';

/*
 * Hot-path reads sent straight to the driver the ORM already holds, as prepared statements: a
 * named statement on PostgreSQL (parsed and planned once per connection, its values bound, never
 * inlined into the SQL text), the extended protocol on PGlite. The ORM's query builder and entity
 * hydration stay for everything else. Every statement is reported to the ORM's logger like the
 * ORM's own, so the round-trip tests count them.
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

const UTC_TIMESTAMP = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?\+00$/;

/** PostgreSQL's text of a UTC `timestamptz` (`2026-11-23 10:00:00.123456+00`) as a Date; else null. */
function utcTimestamp(text: string): Date | null {
  const m = UTC_TIMESTAMP.exec(text);
  if (!m) return null;
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  return new Date(
    Date.UTC(
      +(m[1] as string),
      +(m[2] as string) - 1,
      +(m[3] as string),
      +(m[4] as string),
      +(m[5] as string),
      +(m[6] as string),
      ms,
    ),
  );
}

/** Compiles, once per entity, the mapping of a row's columns to the entity's properties. */
function rowMapper(orm: Orm, entity: string): RowMapper {
  const platform = orm.em.getPlatform();
  const steps = orm
    .getMetadata()
    .getByClassName(entity)
    .props.filter((prop) => prop.fieldNames?.length === 1)
    .map((prop): [string, (row: Row) => unknown] => {
      const column = prop.fieldNames[0] as string;
      const name = prop.name as string;
      if (prop.kind === 'm:1') return [name, (row) => ({ id: row[column] })];
      if (prop.runtimeType === 'Date')
        return [
          name,
          (row) => {
            const value = row[column];
            // The ORM's own connections return timestamps as text; a PGlite given to it may not.
            if (value == null || value instanceof Date) return value;
            return utcTimestamp(value as string) ?? platform.parseDate(value as string);
          },
        ];
      const type = prop.customType;
      if (type) return [name, (row) => type.convertToJSValue(row[column], platform)];
      return [name, (row) => row[column]];
    });
  return (row) => {
    const out: Row = {};
    for (const [name, value] of steps) out[name] = value(row);
    return out;
  };
}

interface PgPool {
  totalCount: number;
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Row[] }>;
}

interface Pglite {
  query(text: string, values: unknown[]): Promise<{ rows: Row[] }>;
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
  const client = (await orm.em.getConnection().getNativeClient()) as PgPool | Pglite;
  const logger = orm.config.getLogger();
  const log = (text: string) => logger.logQuery({ query: text, level: 'info' });
  if ('totalCount' in client) {
    const pool = client;
    return {
      ...common(orm),
      async run(statement, values) {
        log(statement.text);
        return (await pool.query({ name: statement.name, text: statement.text, values })).rows;
      },
    };
  }
  const pglite = client;
  return {
    ...common(orm),
    async run(statement, values) {
      log(statement.text);
      return (await pglite.query(statement.text, values)).rows;
    },
  };
}
