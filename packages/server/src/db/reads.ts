import type { EntityMetadata } from '@mikro-orm/core';
import { columnsOf, countedListOf, pageSql, totalOf } from './pages.js';

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

/** One page of a list, newest first or as `order` says, with the list's total. */
export interface ReadPage {
  entity: DeclaredEntity;
  /** The rows of the organization of the URL (through their `organization` relation). */
  in: 'organization';
  /** Properties and directions (`'createdAt desc'`), matching an index of the owner and them. */
  order: readonly `${string} ${'asc' | 'desc'}`[];
  page: true;
  /** Properties the page does not show, so does not read (large text columns). */
  omit?: readonly string[];
}

export type ReadDeclaration<Param extends string = string> = ReadOne<Param> | ReadPage;

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
}

/** A declared read as SQL, to be joined into a statement that provides its context. */
export interface BuiltRead {
  /** The select of the rows, for a lateral join. */
  rows: string;
  /** The list's total as an SQL expression (a page only). */
  total: string | null;
  /** The values of the read's own placeholders, in order, from the request. */
  values(params: Record<string, unknown>, page: PageWindow): unknown[];
}

/** Where the statement that joins a read stands: what the read may refer to, and its first placeholder. */
export interface ReadContext {
  /** SQL of the organization of the URL (`in: 'organization'`). */
  organization: string;
  /** A condition every row must also meet (the caller is a member of that organization). */
  guard: string;
  /** The number of the read's first placeholder. */
  first: number;
  /** The name the statement gives the list's total (a page: {@link BuiltRead} `total`). */
  totalName: string;
}

function columnOf(meta: EntityMetadata, property: string): string {
  const column = meta.properties[property as never]?.fieldNames?.[0];
  if (!column) throw new Error(`${meta.className} has no column for the property ${property}`);
  return column;
}

/** Builds a declared read from its entity's metadata (once per route: the result is constant). */
export function buildRead(meta: EntityMetadata, read: ReadDeclaration, at: ReadContext): BuiltRead {
  const owner = read.in === 'organization' ? columnOf(meta, 'organization') : null;
  const where = [at.guard, ...(owner ? [`"${owner}" = ${at.organization}`] : [])];
  if ('page' in read) {
    const counted = countedListOf(meta);
    if (!counted || counted.owner !== owner)
      throw new Error(
        `a page of ${meta.className} needs its list counted by its organization (db/pages.ts countedBy)`,
      );
    const orderBy = read.order
      .map((term) => {
        const [property = '', direction] = term.split(' ');
        return `${columnOf(meta, property)} ${direction}`;
      })
      .join(', ');
    if (counted.shown) where.push(counted.shown(`"${meta.tableName}"`));
    return {
      rows: pageSql(meta, {
        where: where.join(' and '),
        orderBy,
        omit: read.omit ?? [],
        limit: `$${at.first}`,
        offset: `$${at.first + 1}`,
        total: at.totalName,
      }),
      total: totalOf(counted, at.organization),
      values: (_params, page) => [page.limit, page.offset],
    };
  }
  const key = meta.primaryKeys[0] as string;
  where.push(`"${columnOf(meta, key)}" = $${at.first}`);
  return {
    rows: `select ${columnsOf(meta).join(', ')} from "${meta.tableName}" where ${where.join(' and ')}`,
    total: null,
    values: (params) => [params[read.by]],
  };
}
