import type { EntityMetadata } from '@mikro-orm/core';
import type { Em } from './database.js';
import { columnsOf, countedListOf, pageSql, rowObjectOf, totalOf, versionOf } from './pages.js';

/*
 * What a route reads, declared (issue #27, item 1). A hot read route says which rows it shows, in
 * the words of its entity, and this module turns the declaration into SQL from the entity's
 * metadata (table, columns, the owner relation, the list's count):
 *
 *   { entity: Collab, in: 'organization', by: 'id' }
 *   { entity: Collab, in: 'organization', order: ['createdAt desc', 'id desc'], page: true, omit: ['brief'] }
 *
 * No module writes SQL for such a read or knows which placeholder holds what: the caller lookup
 * (modules/access-tokens/caller.ts) joins the built read into its own statement, so that one round
 * trip authenticates, checks tenancy and reads the rows, and numbers the placeholders itself.
 * Pages not read with the caller (an organization's members, a user's inbox) are declared the same
 * way and read through the ORM's connection ({@link readPage}).
 */

/** An entity as `defineEntity` makes it (its metadata is looked up by its class name). */
export interface DeclaredEntity {
  meta: { className: string };
}

/** One row, by the id a parameter of the URL holds. */
export interface ReadOne<Param extends string = string> {
  entity: DeclaredEntity;
  /** The row belongs to the organization of the URL (through its `organization` relation). */
  in?: 'organization';
  /** The parameter of the URL that holds the row's primary key. */
  by: Param;
}

/** One page of a list, in the order `order` says, with the list's total. */
export interface ReadPage<Owner extends string = string> {
  entity: DeclaredEntity;
  /**
   * The relation to the list's owner (`organization`: a route's reads are of the organization of
   * its URL); the entity is counted as that owner's list (db/pages.ts `countedBy`).
   */
  in: Owner;
  /** Properties and directions (`'createdAt desc'`), matching an index of the owner and them. */
  order: readonly `${string} ${'asc' | 'desc'}`[];
  page: true;
  /** Properties the page does not show, so does not read (large text columns). */
  omit?: readonly string[];
}

/** A route's read: a row or a page of the organization of its URL (`by` one of its parameters). */
export type ReadDeclaration<Param extends string = string> = ReadOne<Param> | ReadPage<'organization'>;

/** The window of a page (pipeline/pagination.ts). */
export interface PageWindow {
  limit: number;
  offset: number;
}

/**
 * What a declared read selected: plain objects shaped like the entity (db/statements.ts
 * `toEntities`) and, for a page, the total of the list (null otherwise, and for a caller who is not
 * a member of the organization).
 */
export interface ReadResult {
  entities: object[];
  total: number | null;
  /**
   * The version of a versioned list (db/pages.ts `countedBy`) as the page was read (null when the
   * list is not versioned or has no rows, and for a caller who is not a member). When it is the
   * version the read was told it knew ({@link ReadContext} `known`), no row was read.
   */
  version?: string | null;
}

/** A declared read as SQL, to be joined into a statement that provides its context. */
export interface BuiltRead {
  /** The select of the rows, for a lateral join. */
  rows: string;
  /** The list's total as an SQL expression (a page only). */
  total: string | null;
  /** The list's version as an SQL expression (a page of a versioned list only). */
  version: string | null;
}

/**
 * The SQL a statement that joins a read gives it: whose rows (the owner), a condition every row
 * must also meet, the key of a single row, the window of a page, and the name it gives the total.
 */
export interface ReadContext {
  owner: string;
  guard?: string;
  key?: string;
  limit?: string;
  offset?: string;
  totalName?: string;
  /**
   * A page of a versioned list: the version the reader already has the page of (a placeholder,
   * null for none). When the list is still at that version, the page's rows are not read.
   */
  known?: string;
  /** Each row as one JSON column, `row` (db/pages.ts `rowObjectOf`), instead of its columns. */
  asObject?: boolean;
}

function columnOf(meta: EntityMetadata, property: string): string {
  const column = meta.properties[property as never]?.fieldNames?.[0];
  if (!column) throw new Error(`${meta.className} has no column for the property ${property}`);
  return column;
}

const required = (value: string | undefined, what: string) => {
  if (value === undefined) throw new Error(`a declared read needs the statement's ${what}`);
  return value;
};

/** Builds a declared read from its entity's metadata (once per route: the result is constant). */
export function buildRead(meta: EntityMetadata, read: ReadOne | ReadPage, at: ReadContext): BuiltRead {
  const owner = read.in ? columnOf(meta, read.in) : null;
  const where = [...(at.guard ? [at.guard] : []), ...(owner ? [`"${owner}" = ${at.owner}`] : [])];
  if ('page' in read) {
    const counted = countedListOf(meta);
    if (!counted || counted.owner !== owner)
      throw new Error(
        `a page of ${meta.className} needs its list counted by its ${read.in} (db/pages.ts countedBy)`,
      );
    if (counted.shown) where.push(counted.shown(`"${meta.tableName}"`));
    const orderBy = read.order
      .map((term) => {
        const [property = '', direction] = term.split(' ');
        return `${columnOf(meta, property)} ${direction}`;
      })
      .join(', ');
    const version = counted.versioned ? versionOf(counted, at.owner) : null;
    return {
      rows: pageSql(meta, {
        where: where.join(' and '),
        orderBy,
        omit: read.omit ?? [],
        limit: required(at.limit, 'limit'),
        offset: required(at.offset, 'offset'),
        total: required(at.totalName, 'total'),
        ...(version && at.known && { gate: `${at.known} is distinct from ${version}` }),
        ...(at.asObject && { asObject: true }),
      }),
      total: totalOf(counted, at.owner),
      version,
    };
  }
  const key = meta.primaryKeys[0] as string;
  where.push(`"${columnOf(meta, key)}" = ${required(at.key, 'key')}`);
  return {
    rows: `select ${at.asObject ? `${rowObjectOf(meta)} as row` : columnsOf(meta).join(', ')} from "${meta.tableName}" where ${where.join(' and ')}`,
    total: null,
    version: null,
  };
}

/**
 * One page of a list with its total, in one statement, through the ORM's connection (the lists not
 * read with the caller: members, notifications): entities of the ORM, managed by `em`.
 */
export async function readPage<T extends object>(
  em: Em,
  read: ReadPage,
  ownerId: string,
  page: PageWindow,
): Promise<{ entities: T[]; total: number }> {
  const meta = em.getMetadata().getByClassName(read.entity.meta.className);
  const built = buildRead(meta, read, {
    owner: 'a.owner',
    limit: 'a.lim',
    offset: 'a.off',
    totalName: 't.total_count',
  });
  const sql = `select t.total_count, r.* from (select ?::text as owner, ?::bigint as lim, ?::bigint as off) a
cross join lateral (select ${built.total} as total_count) t
left join lateral (${built.rows}) r on true`;
  const rows = await em.execute<Record<string, unknown>[]>(sql, [ownerId, page.limit, page.offset]);
  const total = Number(rows[0]?.total_count ?? 0);
  const entities = rows
    .filter((row) => row.id != null)
    .map(({ total_count: _, ...row }) => em.map(meta.class, row) as T);
  return { entities, total };
}
