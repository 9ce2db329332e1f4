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
}

interface PgPool {
  totalCount: number;
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Row[] }>;
}

interface Pglite {
  query(text: string, values: unknown[]): Promise<{ rows: Row[] }>;
}

const cache = new WeakMap<Orm, Promise<Statements>>();

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
      metadata: orm.getMetadata(),
      async run(statement, values) {
        log(statement.text);
        return (await pool.query({ name: statement.name, text: statement.text, values })).rows;
      },
    };
  }
  const pglite = client;
  return {
    metadata: orm.getMetadata(),
    async run(statement, values) {
      log(statement.text);
      return (await pglite.query(statement.text, values)).rows;
    },
  };
}
