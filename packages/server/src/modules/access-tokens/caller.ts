import type { Role } from '@app/schemas';
import type { MetadataStorage } from '@mikro-orm/core';
import type { FastifyRequest } from 'fastify';
import { buildRead, type PageWindow, type ReadDeclaration, type ReadResult } from '../../db/reads.js';
import type { Row, Statement, Statements } from '../../db/statements.js';
import { bearerToken } from '../../http/bearer.js';
import { digestOf, isWellFormedToken } from './token.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Its bearer token's digest once read ({@link tokenDigestOf}); null: none, or malformed. */
    tokenDigest: string | null | undefined;
  }
}

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
 * A route's declared read (db/reads.ts), for one request: it travels with the caller lookup in the
 * same statement and selects rows only for a member of the organization of the URL.
 */
export interface CallerRead {
  /** The route's name (`collabs.list`): its statement's. */
  name: string;
  declaration: ReadDeclaration;
  params: Record<string, unknown>;
  page: PageWindow;
  /** A page of a versioned list: the version whose page the reader has (its rows are then not read). */
  known?: string | null;
}

/*
 * One round trip: the token by digest, its user, the membership in the organization of the URL,
 * and the route's own read, if any. Whether the token's `last_used_at` is due for its touch (at
 * most once a minute) comes with it; the touch is a second statement only then.
 *
 * The caller is one JSON array column, not nine: `pg` describes every column of every run again
 * (a parser looked up and a property added per column, ~0.65 µs each), so nine columns cost
 * about 5 µs more per request than one array parsed with `JSON.parse`.
 */
const CALLER_SQL = `
select json_build_array(tok.id, tok.permission, u.id, u.name, u.email, m.id, m.role, m.is_owner,
       tok.last_used_at is null or tok.last_used_at < now() - interval '1 minute') as caller`;

const CALLER_FROM = `
from access_tokens tok join users u on u.id = tok.user_id
left join memberships m on m.user_id = u.id and m.organization_id = $2`;
const CALLER_WHERE = `
where tok.digest = $1`;

/** The caller column's entries, in the order of {@link CALLER_SQL}. */
type CallerColumn = [
  tokenId: string,
  permission: CallerRow['permission'],
  userId: string,
  name: string,
  email: string,
  membershipId: string | null,
  role: Role | null,
  isOwner: boolean | null,
  touchDue: boolean,
];

const TOUCH: Statement = {
  name: 'caller_touch',
  text: `update access_tokens set last_used_at = now()
where id = $1 and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
};

const CALLER: Statement = { name: 'caller', text: `${CALLER_SQL}${CALLER_FROM}${CALLER_WHERE}` };
const withRead = new WeakMap<ReadDeclaration, { statement: Statement; versioned: boolean }>();

/**
 * The caller statement joined with a declared read (built once per declaration): the read's rows
 * in a lateral join, each as one JSON column (`row`, for the reason the caller is one), and for a
 * page the list's total beside the caller's columns. Placeholders:
 * `$1` the token's digest, `$2` the organization of the URL, then the read's own: a row's key, or
 * a page's limit and offset, and for a versioned list the version whose page the reader has.
 */
function statementOf(metadata: MetadataStorage, name: string, declaration: ReadDeclaration) {
  let found = withRead.get(declaration);
  if (!found) {
    const read = buildRead(metadata.getByClassName(declaration.entity.meta.className), declaration, {
      owner: '$2',
      guard: 'm.id is not null',
      key: '$3',
      limit: '$3',
      offset: '$4',
      totalName: 't.total_count',
      known: '$5::bigint',
      asObject: true,
    });
    const version = read.version
      ? `, case when m.id is not null then ${read.version} end as list_version`
      : '';
    const total = read.total
      ? `
left join lateral (
  select case when m.id is not null then ${read.total} end as total_count${version}
) t on true`
      : '';
    const statement = {
      name: `caller+${name}`,
      text: `${CALLER_SQL}${total ? `, t.total_count${version ? ', t.list_version' : ''}` : ''}, r.row${CALLER_FROM}${total}
left join lateral (
  ${read.rows}
) r on true${CALLER_WHERE}`,
    };
    found = { statement, versioned: read.version !== null };
    withRead.set(declaration, found);
  }
  return found;
}

const callerOf = (c: CallerColumn): CallerRow => ({
  token_id: c[0],
  permission: c[1],
  user_id: c[2],
  name: c[3],
  email: c[4],
  membership_id: c[5],
  role: c[6],
  is_owner: c[7],
});

/**
 * The digest of the request's bearer token, or null when it has none or a malformed one (refused
 * offline, by its checksum). Read once per request, by whoever asks first (the share of the cap on
 * arrival, pipeline/callers.ts; the caller's lookup after it): the checksum and the SHA-256 are
 * work every request does, not three times.
 */
export function tokenDigestOf(request: FastifyRequest): string | null {
  let digest = request.tokenDigest;
  if (digest === undefined) {
    const token = bearerToken(request);
    digest = token !== null && isWellFormedToken(token) ? digestOf(token) : null;
    request.tokenDigest = digest;
  }
  return digest;
}

/**
 * Looks up the caller of a bearer token by its digest ({@link tokenDigestOf}): null when the token
 * is unknown or revoked. Touches `last_used_at` when it is due. With `read`, also returns what it
 * selects, shaped like the entity (nothing for a non-member).
 */
export async function findCaller(
  statements: Statements,
  tokenDigest: string,
  organizationId: string | undefined,
  read?: CallerRead,
): Promise<{ caller: CallerRow; read: ReadResult } | null> {
  const values = [tokenDigest, organizationId ?? null];
  let rows: Row[];
  if (read) {
    const { statement, versioned } = statementOf(statements.metadata, read.name, read.declaration);
    const { declaration, page, params } = read;
    const own =
      'page' in declaration
        ? [page.limit, page.offset, ...(versioned ? [read.known ?? null] : [])]
        : [params[declaration.by]];
    rows = await statements.run(statement, [...values, ...own]);
  } else rows = await statements.run(CALLER, values);
  const first = rows[0];
  if (!first) return null;
  // Both drivers parse a `json` column (`pg` and PGlite: `JSON.parse`).
  const column = first.caller as CallerColumn;
  const caller = callerOf(column);
  const touchDue = column[8];
  if (touchDue) await statements.run(TOUCH, [caller.token_id]);
  const member = caller.membership_id !== null;
  // Each row is one JSON column keyed by column names (db/pages.ts `rowObjectOf`), parsed by the driver.
  const selected = read && member ? rows.flatMap((row) => (row.row == null ? [] : [row.row as Row])) : [];
  return {
    caller,
    read: {
      entities: read ? statements.toEntities(read.declaration.entity.meta.className, selected) : [],
      total: read && 'page' in read.declaration && member ? Number(first.total_count) : null,
      // A bigint: a string from pg, a BigInt from PGlite.
      version: first.list_version == null ? null : String(first.list_version),
    },
  };
}
