import type { Role } from '@app/schemas';
import type { MetadataStorage } from '@mikro-orm/core';
import type { Row, Statement, Statements } from '../../db/statements.js';
import { type CountedList, columnsOf, pageSql, totalOf } from '../common/pages.js';
import { digestOf, isWellFormedToken } from './token.js';

/** The token of a request, its user, and that user's membership in the organization of the URL. */
export interface CallerRow {
  token_id: string;
  permission: 'read' | 'write';
  user_id: string;
  name: string;
  email: string;
  membership_id: string | null;
  role: Role | null;
  is_owner: boolean | null;
}

/**
 * A read that travels with the caller lookup in the same statement: the rows of `entity` that
 * `where` selects, in `orderBy` order, which may use `$2` (the organization of the URL) and `$3`…
 * (its own `values`). It runs only for a member of that organization. Its
 * columns are the entity's, named, so a column added by a migration cannot break a prepared
 * statement of a running instance. With `page`, it selects one page through the index of its
 * order (common/pages.ts), and the statement carries the total of the list `counted` (whose owner
 * is the organization, `$2`) as kept in `row_counts`, also past the last page.
 */
export interface CallerRead {
  name: string;
  /** The entity's name (`'Collab'`): its table and columns come from its metadata. */
  entity: string;
  where: string;
  orderBy?: string;
  /** Properties not to read (what the answer does not show: a list's large text columns). */
  omit?: readonly string[];
  values: unknown[];
  page?: { limit: number; offset: number };
  /** The list a page belongs to, whose total it reads (required with `page`). */
  counted?: CountedList;
}

/**
 * What a {@link CallerRead} selected: entity-shaped objects and, for a page, the total of all
 * pages (null for a read that is not a page, and for a caller who is not a member).
 */
export interface ReadResult {
  entities: object[];
  total: number | null;
}

/*
 * One round trip: the token by digest, its user, the membership in the organization of the URL,
 * and the route's own read, if any. Whether the token's `last_used_at` is due for its touch (at
 * most once a minute) comes with it; the touch is a second statement only then.
 */
const CALLER_SQL = `
select tok.id as caller_token_id, tok.permission as caller_permission, u.id as caller_user_id,
       u.name as caller_name, u.email as caller_email, m.id as caller_membership_id,
       m.role as caller_role, m.is_owner as caller_is_owner,
       (tok.last_used_at is null or tok.last_used_at < now() - interval '1 minute') as caller_touch_due`;
const CALLER_FROM = `
from access_tokens tok join users u on u.id = tok.user_id
left join memberships m on m.user_id = u.id and m.organization_id = $2`;
const CALLER_WHERE = `
where tok.digest = $1`;

const TOUCH: Statement = {
  name: 'caller_touch',
  text: `update access_tokens set last_used_at = now()
where id = $1 and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
};

const CALLER: Statement = { name: 'caller', text: `${CALLER_SQL}${CALLER_FROM}${CALLER_WHERE}` };
const withRead = new Map<string, Statement>();

/** The caller statement joined with `read` (built once per read). */
function statementOf(metadata: MetadataStorage, read: CallerRead): Statement {
  let found = withRead.get(read.name);
  if (!found) {
    const meta = metadata.getByClassName(read.entity);
    const where = `m.id is not null and (${read.where})`;
    let rows: string;
    let total = '';
    if (read.page) {
      if (!read.counted) throw new Error(`the page read ${read.name} names no counted list`);
      const first = 3 + read.values.length;
      rows = pageSql(meta, {
        where,
        orderBy: read.orderBy ?? 'id',
        omit: read.omit ?? [],
        limit: `$${first}`,
        offset: `$${first + 1}`,
        total: 't.total_count',
      });
      total = `
left join lateral (
  select case when m.id is not null then ${totalOf(read.counted, '$2')} end as total_count
) t on true`;
    } else {
      rows = `select ${columnsOf(meta, read.omit).join(', ')} from "${meta.tableName}"
  where ${where}${read.orderBy ? ` order by ${read.orderBy}` : ''}`;
    }
    found = {
      name: `caller+${read.name}`,
      text: `${CALLER_SQL}${total ? ', t.total_count' : ''}, r.*${CALLER_FROM}${total}
left join lateral (
  ${rows}
) r on true${CALLER_WHERE}`,
    };
    withRead.set(read.name, found);
  }
  return found;
}

const callerOf = (row: Row): CallerRow => ({
  token_id: row.caller_token_id as string,
  permission: row.caller_permission as CallerRow['permission'],
  user_id: row.caller_user_id as string,
  name: row.caller_name as string,
  email: row.caller_email as string,
  membership_id: (row.caller_membership_id as string | null) ?? null,
  role: (row.caller_role as Role | null) ?? null,
  is_owner: (row.caller_is_owner as boolean | null) ?? null,
});

/**
 * Looks up the caller of a bearer token: null when the token is malformed (refused offline, by
 * its checksum), unknown or revoked. Touches `last_used_at` when it is due. With `read`,
 * also returns what it selects, shaped like the entity (nothing for a non-member).
 */
export async function findCaller(
  statements: Statements,
  token: string,
  organizationId: string | undefined,
  read?: CallerRead,
): Promise<{ caller: CallerRow; read: ReadResult } | null> {
  if (!isWellFormedToken(token)) return null;
  const values = [digestOf(token), organizationId ?? null];
  const rows = read
    ? await statements.run(statementOf(statements.metadata, read), [
        ...values,
        ...read.values,
        ...(read.page ? [read.page.limit, read.page.offset] : []),
      ])
    : await statements.run(CALLER, values);
  const first = rows[0];
  if (!first) return null;
  if (first.caller_touch_due === true) await statements.run(TOUCH, [first.caller_token_id]);
  const selected = read && first.caller_membership_id ? rows.filter((row) => row.id != null) : [];
  return {
    caller: callerOf(first),
    read: {
      entities: read ? statements.toEntities(read.entity, selected) : [],
      total: read?.page && first.caller_membership_id ? Number(first.total_count) : null,
    },
  };
}
