import type { Access, Role, Scope } from '@app/schemas';
import type { FastifyRequest } from 'fastify';
import { bearerToken } from '../http/bearer.js';
import { forbidden, notFound, UnauthorizedError } from '../http/errors.js';
import { type CallerRead, findCaller } from '../modules/access-tokens/caller.js';

/** Who is calling, as established from the token (and the organization in the URL). */
export interface Caller {
  tokenId: string;
  permission: 'read' | 'write';
  user: { id: string; name: string; email: string };
  /** The caller's membership in the organization the URL names, if any. */
  membership: { id: string; role: Role; isOwner: boolean } | null;
}

/**
 * Authenticates the request and checks its organization role, in the order of decisions.md:
 * token (401) → tenancy (404) → role (403). Sets `request.caller`, and with `read` (the route's
 * own rows, fetched in the same statement) `request.readResult`.
 */
export async function authorize(
  request: FastifyRequest,
  rule: {
    scope: Scope;
    access: Exclude<Access, 'test-helpers'>;
    organizationId: string | undefined;
  },
  read?: CallerRead,
): Promise<Caller> {
  const token = bearerToken(request);
  const found = token ? await findCaller(await request.statements(), token, rule.organizationId, read) : null;
  if (!found) throw new UnauthorizedError();
  const row = found.caller;
  if (read) request.readResult = found.read;
  // The endpoint's declared scope decides (spec: a read token only for GET and HEAD, which are
  // exactly the endpoints declared `read`).
  if (rule.scope === 'write' && row.permission !== 'write') throw new UnauthorizedError();

  const caller: Caller = {
    tokenId: row.token_id,
    permission: row.permission,
    user: { id: row.user_id, name: row.name, email: row.email },
    membership:
      row.membership_id && row.role
        ? { id: row.membership_id, role: row.role, isOwner: row.is_owner === true }
        : null,
  };
  request.caller = caller;

  if (rule.access === 'user') return caller;
  if (!caller.membership) throw notFound();
  if (rule.access === 'admin' && caller.membership.role !== 'admin') throw forbidden();
  if (rule.access === 'owner' && !caller.membership.isOwner) throw forbidden();
  // `admin-or-self` is decided by the members module, under the memberships lock: whether the
  // target is "self" needs the target, and a target in another organization must be a 404 first.
  return caller;
}
