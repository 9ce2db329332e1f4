import type { Access, Scope } from '@app/schemas';
import type { FastifyRequest } from 'fastify';
import type { ReadResult } from '../db/reads.js';
import { forbidden, notFound, UnauthorizedError } from '../http/errors.js';
import type { Caller } from '../http/route.js';
import { type CallerRead, findCaller, tokenDigestOf } from '../modules/access-tokens/caller.js';
import type { Callers } from './callers.js';

export type { CallerRead };

/**
 * Authenticates the request and checks its organization role, in the order of decisions.md:
 * token (401) → tenancy (404) → role (403). Sets `request.caller`; with `read` (the route's
 * declared read, fetched in the same statement) returns what it selected. Tells `callers` whose
 * token it was (or that it was no one's), for the per-client share of the cap.
 */
export async function authorize(
  request: FastifyRequest,
  rule: {
    scope: Scope;
    access: Exclude<Access, 'test-helpers'>;
    organizationId: string | undefined;
  },
  callers: Callers,
  read?: CallerRead,
): Promise<ReadResult | undefined> {
  const digest = tokenDigestOf(request);
  const found = digest
    ? await findCaller(await request.statements(), digest, rule.organizationId, read)
    : null;
  if (!found) {
    if (digest) callers.refused(digest);
    throw new UnauthorizedError();
  }
  const row = found.caller;
  callers.authenticated(digest as string, row.user_id);
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

  const selected = read ? found.read : undefined;
  if (rule.access === 'user') return selected;
  if (!caller.membership) throw notFound();
  if (rule.access === 'admin' && caller.membership.role !== 'admin') throw forbidden();
  if (rule.access === 'owner' && !caller.membership.isOwner) throw forbidden();
  // `admin-or-self` is decided by the members module, under the memberships lock: whether the
  // target is "self" needs the target, and a target in another organization must be a 404 first.
  return selected;
}
