import type { Role } from '@app/schemas';
import type { Em } from '../../db/database.js';
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

/*
 * One round trip: the token by digest, its user, the membership in the organization of the URL,
 * and the `last_used_at` touch (at most once a minute per token, in the same statement).
 */
const CALLER_SQL = `
with tok as (
  select id, user_id, permission, last_used_at from access_tokens where digest = ?
), touched as (
  update access_tokens set last_used_at = now()
  where id in (select id from tok where last_used_at is null or last_used_at < now() - interval '1 minute')
  returning id
)
select tok.id as token_id, tok.permission, u.id as user_id, u.name, u.email,
       m.id as membership_id, m.role, m.is_owner
from tok join users u on u.id = tok.user_id
left join memberships m on m.user_id = u.id and m.organization_id = ?`;

/**
 * Looks up the caller of a bearer token: null when the token is malformed (refused offline, by
 * its checksum), unknown or revoked. Touches `last_used_at` in the same statement.
 */
export async function findCaller(
  em: Em,
  token: string,
  organizationId: string | undefined,
): Promise<CallerRow | null> {
  if (!isWellFormedToken(token)) return null;
  const rows = await em.execute<CallerRow[]>(CALLER_SQL, [digestOf(token), organizationId ?? null]);
  return rows[0] ?? null;
}
