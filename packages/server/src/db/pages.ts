import type { EntityMetadata, TriggerDef } from '@mikro-orm/core';

/*
 * Pages that cost the same at any size (issue #27, item 4). A list that can grow without bound
 * (an organization's collabs, campaigns and members, a user's notifications) is read in three
 * parts, in one statement:
 *
 * - its total from `row_counts` (db/row-count.entity.ts), one row per list and owner, kept by
 *   the triggers {@link countedBy} declares on the listed entity: the count changes in the
 *   transaction that inserts or deletes the row, so the statement that reads a page and its count
 *   sees both as of one snapshot, and `Total-Count` is exact under concurrent writes;
 * - the ids of the page, from the index that matches the list's order (`created_at desc, id desc`
 *   within the owner): `offset` skips index entries, never the rows (a deferred join), and a page
 *   past the middle is read from the other end of the index;
 * - the page's rows, by those ids.
 */

/** A list kept in `row_counts`: its name there and the column of its owner. */
export interface CountedList {
  /** The name of the list in `row_counts` (`collabs`). */
  list: string;
  /** The column of the owner the list is counted by (`organization_id`). */
  owner: string;
  /** A fixed condition on the rows the list shows (SQL on the row, `new`/`old`, or the table). */
  shown?: (row: string) => string;
  /**
   * The list has a version (`row_counts.version`) that changes with every insert, update and
   * delete of its rows, so that a page read with it can be cached until it changes
   * (pipeline/page-cache.ts). Its updates then lock the owner's count to the commit as its inserts
   * and deletes do: a transaction that writes two rows of one owner's list must not wait on
   * another that does the same.
   */
  versioned?: boolean;
}

/** The lists declared by {@link countedBy}, by the name of their trigger. */
const countedLists = new Map<string, CountedList>();
const triggerName = (list: string) => `${list}_count`;

/**
 * The list an entity is counted as (the trigger {@link countedBy} put in its metadata), if any:
 * what a declared page of that entity reads its total from (db/reads.ts).
 */
export function countedListOf(meta: EntityMetadata): CountedList | undefined {
  for (const trigger of meta.triggers ?? []) {
    const found = trigger.name ? countedLists.get(trigger.name) : undefined;
    if (found) return found;
  }
  return undefined;
}

/**
 * The version a versioned list takes in a transaction that changes it: the transaction's id, which
 * PostgreSQL never gives twice (64 bits, `xid8`), so that a version names one committed state of
 * the list, even after its owner's count was removed at 0 and made again.
 */
const VERSION = 'pg_current_xact_id()::text::bigint';

/**
 * The trigger that keeps a list's count in `row_counts` (an entity's `triggers`): one more on
 * insert, one less on delete, the owner's count removed when it reaches 0. The owner column and
 * what `shown` reads are never updated, so updates need no counting; a `versioned` list's updates
 * change its version (once per transaction).
 */
export function countedBy(counted: CountedList): TriggerDef[] {
  const { list, owner, shown, versioned = false } = counted;
  countedLists.set(triggerName(list), counted);
  const when = (row: string, sql: string) => (shown ? `if ${shown(row)} then ${sql} end if;` : sql);
  const key = (row: string) => `list = '${list}' and owner_id = ${row}.${owner}`;
  const insert = versioned
    ? `insert into row_counts (list, owner_id, count, version) values ('${list}', new.${owner}, 1, ${VERSION}) on conflict (list, owner_id) do update set count = row_counts.count + 1, version = excluded.version;`
    : `insert into row_counts (list, owner_id, count) values ('${list}', new.${owner}, 1) on conflict (list, owner_id) do update set count = row_counts.count + 1;`;
  const remove = `update row_counts set count = count - 1${versioned ? `, version = ${VERSION}` : ''} where ${key('old')}; delete from row_counts where ${key('old')} and count = 0;`;
  const update = `update row_counts set version = ${VERSION} where ${key('new')} and version is distinct from ${VERSION};`;
  return [
    {
      name: triggerName(list),
      timing: 'after',
      events: versioned ? ['insert', 'update', 'delete'] : ['insert', 'delete'],
      forEach: 'row',
      body: `if TG_OP = 'INSERT' then ${when('new', insert)} return new; end if; ${
        versioned ? `if TG_OP = 'UPDATE' then ${when('new', update)} return new; end if; ` : ''
      }${when('old', remove)} return old;`,
    },
  ];
}

/** A versioned list's version as an SQL expression (null when the owner has no rows). */
export const versionOf = (list: CountedList, ownerSql: string) =>
  `(select version from row_counts where list = '${list.list}' and owner_id = ${ownerSql})`;

/** A list's total as an SQL expression: its count in `row_counts` for the owner `ownerSql`. */
export const totalOf = (list: CountedList, ownerSql: string) =>
  `coalesce((select count from row_counts where list = '${list.list}' and owner_id = ${ownerSql}), 0)`;

/** The quoted columns of an entity, less the properties a list does not show. */
export function columnsOf(meta: EntityMetadata, omit: readonly string[] = [], alias = ''): string[] {
  return meta.props
    .filter((prop) => !omit.includes(prop.name as string))
    .flatMap((prop) => prop.fieldNames ?? [])
    .map((column) => `${alias}"${column}"`);
}

/** Column types whose value `JSON` carries as `pg` and PGlite parse the column itself. */
const AS_JSON = new Set([
  'varchar',
  'character varying',
  'char',
  'character',
  'bpchar',
  'text',
  'uuid',
  'boolean',
  'bool',
  'smallint',
  'int2',
  'int',
  'integer',
  'int4',
  'real',
  'float4',
  'float8',
  'double precision',
  'json',
  'jsonb',
]);
/** Column types the drivers read as text: sent as their text (`::text`), read as before. */
const AS_TEXT = new Set(['timestamptz', 'timestamp', 'bigint', 'int8', 'numeric', 'decimal']);

/** A column's value inside {@link rowObjectOf}: as it is, or as the text the drivers would read. */
function jsonValueOf(meta: EntityMetadata, column: string, type: string | undefined, alias: string) {
  const base = (type ?? '')
    .toLowerCase()
    .replace(/\(.*\)/, '')
    .trim();
  const array = base.endsWith('[]');
  const element = array ? base.slice(0, -2).trim() : base;
  if (AS_JSON.has(element)) return `${alias}"${column}"`;
  if (!array && AS_TEXT.has(element)) return `${alias}"${column}"::text`;
  throw new Error(`${meta.className}.${column}: a row read as one JSON object cannot carry ${type}`);
}

/**
 * The row as one JSON object keyed by its column names, less the properties `omit` names: the
 * value of each column as the drivers would read the column itself (timestamps and 64-bit numbers
 * as their text, parsed as before). One column instead of one per property: `pg` describes every
 * column of every run again (db/statements.ts), about 0.65 µs each.
 */
export function rowObjectOf(meta: EntityMetadata, omit: readonly string[] = [], alias = ''): string {
  const pairs = meta.props
    .filter((prop) => !omit.includes(prop.name as string))
    .flatMap((prop) =>
      (prop.fieldNames ?? []).map(
        (column, i) => `'${column}', ${jsonValueOf(meta, column, prop.columnTypes?.[i], alias)}`,
      ),
    );
  // PostgreSQL takes at most 100 arguments to a function.
  if (pairs.length > 50) throw new Error(`${meta.className}: more than 50 columns for one JSON object`);
  return `json_build_object(${pairs.join(', ')})`;
}

/** `created_at desc, id desc` → `created_at asc, id asc`. */
const reversed = (orderBy: string) =>
  orderBy
    .split(',')
    .map((term) => {
      const [column, direction] = term.trim().split(/\s+/);
      return `${column} ${direction?.toLowerCase() === 'desc' ? 'asc' : 'desc'}`;
    })
    .join(', ');

/**
 * The SQL of one page of a list, in `orderBy` order: the ids of the page selected by `where`
 * (with `limit` and `offset`, SQL placeholders, read as `bigint`) through the index that matches
 * the order, then their rows. `orderBy` names columns of the table only (`created_at desc, id
 * desc`).
 *
 * With `total` (the list's count, an SQL expression), a page in the second half of the list is
 * read from the other end of the index, in the reverse order, skipping the `total - offset -
 * limit` entries after it: the last page costs what the first does, and no page skips more than
 * half the list. `where` must then select exactly the rows `total` counts.
 */
export function pageSql(
  meta: EntityMetadata,
  page: {
    where: string;
    orderBy: string;
    omit?: readonly string[];
    limit: string;
    offset: string;
    total?: string;
    /** A condition on the statement's parameters only: when it is false, no row is read. */
    gate?: string;
    /** Each row as one JSON column, `row` ({@link rowObjectOf}), instead of its columns. */
    asObject?: boolean;
  },
): string {
  const table = `"${meta.tableName}"`;
  const { where, orderBy, total, gate } = page;
  // 64-bit: the largest page the schema takes (2^53 − 1) starts at an offset of about 1.8 × 10^17,
  // and twice an offset of page 53 687 093 already passed a 32-bit integer (a 500).
  const limit = `${page.limit}::bigint`;
  const offset = `${page.offset}::bigint`;
  const ids = total
    ? `(select id from ${table} where ${where} and 2 * ${offset} < ${total} order by ${orderBy} limit ${limit} offset ${offset})
  union all
  (select id from ${table} where ${where} and 2 * ${offset} >= ${total} order by ${reversed(orderBy)}
   limit greatest(least(${limit}, ${total} - ${offset}), 0) offset greatest(${total} - ${offset} - ${limit}, 0))`
    : `select id from ${table} where ${where} order by ${orderBy} limit ${limit} offset ${offset}`;
  // The rows by their ids as an array: a join would let the planner guess the ids' number (a
  // limit it cannot read in a prepared statement) and hash the whole table.
  const select = page.asObject
    ? `${rowObjectOf(meta, page.omit, 'r.')} as row`
    : columnsOf(meta, page.omit, 'r.').join(', ');
  return `select ${select}
  from ${table} r where ${gate ? `${gate} and ` : ''}r.id = any(array(${ids}))
  order by ${orderBy
    .split(',')
    .map((term) => `r.${term.trim()}`)
    .join(', ')}`;
}
