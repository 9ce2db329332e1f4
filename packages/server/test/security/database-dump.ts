/**
 * Whole-database views for the security suites: every table of the current schema, read from the
 * catalogue (never a hard-coded list, so a new table is covered the day it is added).
 */
import type { TestServer } from '../harness.js';

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Names of every base table of the schema the app uses, sorted. */
export async function tableNames(server: TestServer): Promise<string[]> {
  const rows = await server.sql<{ table_name: string }>(
    `select table_name from information_schema.tables
     where table_schema = current_schema() and table_type = 'BASE TABLE'
     order by table_name`,
  );
  return rows.map((r) => r.table_name);
}

/** Every row of every table, each row cast to text (all its columns), by table. */
export async function dumpAsText(server: TestServer): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of await tableNames(server)) {
    const rows = await server.sql<{ row: string }>(`select t::text as row from ${quoteIdent(table)} t`);
    out[table] = rows.map((r) => r.row);
  }
  return out;
}

export type Digest = Record<string, { rows: number; hash: string }>;

/**
 * Row count and an order-independent digest (the sum of 64-bit row hashes) of each table, in one
 * statement: the fuzz suite takes one around every request. Columns named `last_used_at` are left
 * out: authentication touches a token's at most once a minute by design (decisions.md), whatever
 * the request's outcome.
 */
export function digester(server: TestServer): { digest(): Promise<Digest> } {
  let statement: string | undefined;
  const build = async () => {
    const columns = await server.sql<{ table_name: string; column_name: string }>(
      `select table_name, column_name from information_schema.columns
       where table_schema = current_schema() and column_name <> 'last_used_at'
       order by table_name, ordinal_position`,
    );
    return (await tableNames(server))
      .map((table) => {
        const cols = columns
          .filter((c) => c.table_name === table)
          .map((c) => `t.${quoteIdent(c.column_name)}`);
        const row = `row(${cols.join(', ')})::text`;
        return `select '${table.replaceAll("'", "''")}' as name, count(*)::int as rows,
          coalesce(sum(hashtextextended(${row}, 0)::numeric), 0)::text as hash
          from ${quoteIdent(table)} t`;
      })
      .join('\nunion all\n');
  };
  return {
    async digest() {
      statement ??= await build();
      const rows = await server.sql<{ name: string; rows: number; hash: string }>(statement);
      return Object.fromEntries(rows.map((r) => [r.name, { rows: Number(r.rows), hash: r.hash }]));
    },
  };
}

/**
 * The next transaction id to be assigned. PostgreSQL gives every transaction that writes (or tries
 * to: a failed insert too) an id, so an unchanged value proves that nothing was written meanwhile.
 * It is cluster-wide: on a shared PostgreSQL other databases move it too (then the digest decides).
 */
export async function nextTransactionId(server: TestServer): Promise<string> {
  const [row] = await server.sql<{ xid: string }>(
    'select pg_snapshot_xmax(pg_current_snapshot())::text as xid',
  );
  return row?.xid as string;
}
