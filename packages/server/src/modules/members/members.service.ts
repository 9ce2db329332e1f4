import { JOIN_REQUEST_RECEIVED, type Role } from '@app/schemas';
import { ForeignKeyConstraintViolationException, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Em } from '../../db/database.js';
import { type ReadPage, readPage } from '../../db/reads.js';
import { forbidden, notFound, unavailable, unprocessable } from '../../http/errors.js';
import { iso } from '../../http/present.js';
import { notify } from '../notifications/notifications.service.js';
import type { Organization } from '../organizations/organization.entity.js';
import { presentUser } from '../users/users.service.js';
import { JoinRequest } from './join-request.entity.js';
import { Membership } from './membership.entity.js';

const OWNER_DEMOTION_MESSAGE = 'cannot be changed for the organization owner';
const LAST_ADMIN_DEMOTION_MESSAGE = 'cannot be changed for the only remaining admin';
const OWNER_REMOVAL_MESSAGE = 'The organization owner cannot be removed';
const SOLE_MEMBER_REMOVAL_MESSAGE = 'The only member of an organization cannot be removed';
const LAST_ADMIN_REMOVAL_MESSAGE = 'The only remaining admin cannot be removed';
const ALREADY_MEMBER_MESSAGE = 'is already a member of this organization';

/** Wire shape of a membership; its user must be loaded. */
export function presentMembership(membership: Membership) {
  return {
    id: membership.id,
    role: membership.role,
    is_owner: membership.isOwner,
    created_at: iso(membership.createdAt),
    updated_at: iso(membership.updatedAt),
    user: presentUser(membership.user),
  };
}

/** Ids of the organization's admins (to notify them). */
async function adminIdsOf(em: Em, organizationId: string): Promise<string[]> {
  const admins = await em.find(Membership, { organization: organizationId, role: 'admin' });
  return admins.map((m) => m.user.id);
}

/** A page of the organizations a user belongs to, oldest first (then by id). */
export async function organizationsOfUser(
  em: Em,
  userId: string,
  window: { limit: number; offset: number },
): Promise<{ organizations: Organization[]; total: number }> {
  const [memberships, total] = await em.findAndCount(
    Membership,
    { user: userId },
    {
      populate: ['organization'],
      orderBy: { organization: { createdAt: 'asc', id: 'asc' } },
      ...window,
    },
  );
  return { organizations: memberships.map((m) => m.organization), total };
}

/** Makes a user the owner of a new organization; runs in the caller's transaction (no flush). */
export function addOwner(em: Em, organizationId: string, userId: string): void {
  em.create(Membership, { organization: organizationId, user: userId, role: 'admin', isOwner: true });
}

/**
 * Adds a user to an organization (test helpers). An unknown organization or user is a 404 (the
 * foreign keys decide, so there is no check-then-insert race); an existing member is a 422.
 */
export async function addMember(em: Em, organizationId: string, userId: string, role: Role) {
  const membership = em.create(Membership, { organization: organizationId, user: userId, role });
  await flushNewRow(em, { organizationId, userId });
  await em.populate(membership, ['user']);
  return presentMembership(membership);
}

/** Records a user's request to join an organization and notifies every admin (test helpers). */
export async function createJoinRequest(em: Em, organizationId: string, userId: string) {
  return em.transactional(async (tem) => {
    if ((await tem.count(Membership, { organization: organizationId, user: userId })) > 0)
      throw unprocessable({ user_id: [ALREADY_MEMBER_MESSAGE] });
    const request = tem.create(JoinRequest, { organization: organizationId, user: userId });
    await flushNewRow(tem, { organizationId, userId });
    await tem.populate(request, ['user', 'organization']);
    await notify(tem, await adminIdsOf(tem, organizationId), {
      type: JOIN_REQUEST_RECEIVED,
      params: { user_name: request.user.name, organization_name: request.organization.name },
      recordType: 'Membership::JoinRequest',
      recordId: request.id,
    });
    return {
      id: request.id,
      user_id: request.user.id,
      organization_id: request.organization.id,
      created_at: iso(request.createdAt),
    };
  });
}

/** Stored ids are `newId()`s: a longer string names nothing (and would not fit the id column). */
const MAX_ID_LENGTH = 16;

/**
 * Flushes a new row that references an organization and a user, mapping constraint failures:
 * an unknown organization or user is a 404, an existing membership a 422.
 */
async function flushNewRow(em: Em, ids: { organizationId: string; userId: string }): Promise<void> {
  if (ids.organizationId.length > MAX_ID_LENGTH || ids.userId.length > MAX_ID_LENGTH) throw notFound();
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof ForeignKeyConstraintViolationException) throw notFound();
    if (error instanceof UniqueConstraintViolationException)
      throw unprocessable({ user_id: [ALREADY_MEMBER_MESSAGE] });
    throw error;
  }
}

/** A page of members: `role` is stored as text, so 'admin' sorts before 'member'. */
const MEMBERS_PAGE: ReadPage = {
  entity: Membership,
  in: 'organization',
  order: ['role asc', 'createdAt asc', 'id asc'],
  page: true,
};

/**
 * Members, admins first, then oldest first (then by id): the page and its total in one statement
 * (db/pages.ts), then their users.
 */
export async function listMembers(em: Em, organizationId: string, window: { limit: number; offset: number }) {
  const { entities, total } = await readPage<Membership>(em, MEMBERS_PAGE, organizationId, window);
  await em.populate(entities, ['user']);
  return { items: entities.map(presentMembership), total };
}

/** Lock namespace of {@link withMembershipsLocked} (first key of the two-key advisory lock). */
const MEMBERSHIPS_LOCK = 7_301;

interface GuardedChange {
  /** The membership being changed. */
  target: Membership;
  /** The caller's own membership as it is now (null once they have left). */
  caller: Membership | null;
  admins: number;
  members: number;
}

/**
 * Runs a change of an organization's memberships in a transaction that holds the organization's
 * membership lock, so the guards (owner, only admin, sole member) are checked against counts no
 * concurrent change can invalidate. The caller's role is read again under the lock: it may have
 * changed since the request was authorized.
 */
async function withMembershipsLocked<T>(
  em: Em,
  organizationId: string,
  ids: { membershipId: string; callerUserId: string },
  change: (tem: Em, state: GuardedChange) => Promise<T>,
): Promise<T> {
  return em.transactional(async (tem) => {
    await tem.execute('select pg_advisory_xact_lock(?, hashtext(?))', [MEMBERSHIPS_LOCK, organizationId]);
    const rows = await tem.find(
      Membership,
      { organization: organizationId, $or: [{ id: ids.membershipId }, { user: ids.callerUserId }] },
      { populate: ['user'] },
    );
    const target = rows.find((m) => m.id === ids.membershipId);
    if (!target) throw notFound();
    const caller = rows.find((m) => m.user.id === ids.callerUserId) ?? null;
    const [counts] = await tem.execute<{ admins: number; members: number }[]>(
      `select count(*) filter (where role = 'admin')::int as admins, count(*)::int as members
       from memberships where organization_id = ?`,
      [organizationId],
    );
    return change(tem, { target, caller, admins: counts?.admins ?? 0, members: counts?.members ?? 0 });
  });
}

/** Changes a member's role (admins only); the owner and the only admin cannot be demoted. */
export async function changeRole(
  em: Em,
  organizationId: string,
  membershipId: string,
  callerUserId: string,
  role: Role,
) {
  return withMembershipsLocked(em, organizationId, { membershipId, callerUserId }, async (tem, state) => {
    const { target, caller } = state;
    if (!caller) throw notFound();
    if (caller.role !== 'admin') throw forbidden();
    if (target.role === 'admin' && role === 'member') {
      const errors: string[] = [];
      if (target.isOwner) errors.push(OWNER_DEMOTION_MESSAGE);
      if (state.admins <= 1) errors.push(LAST_ADMIN_DEMOTION_MESSAGE);
      if (errors.length > 0) throw unprocessable({ role: errors });
    }
    target.role = role;
    await tem.flush();
    return presentMembership(target);
  });
}

/**
 * Removes a membership: an admin removes anyone, a member only themselves (leaving the
 * organization). The owner, the sole member and the only admin cannot be removed.
 */
export async function removeMember(
  em: Em,
  organizationId: string,
  membershipId: string,
  callerUserId: string,
): Promise<void> {
  await withMembershipsLocked(em, organizationId, { membershipId, callerUserId }, async (tem, state) => {
    const { target, caller } = state;
    if (!caller) throw notFound();
    if (caller.role !== 'admin' && caller.id !== target.id) throw forbidden();
    const errors: string[] = [];
    if (target.isOwner) errors.push(OWNER_REMOVAL_MESSAGE);
    if (state.members <= 1) errors.push(SOLE_MEMBER_REMOVAL_MESSAGE);
    if (target.role === 'admin' && state.admins <= 1) errors.push(LAST_ADMIN_REMOVAL_MESSAGE);
    if (errors.length > 0) throw unprocessable({ base: errors });
    tem.remove(target);
  });
}

/**
 * Checks, inside a write's transaction, that the caller is still a member of the organization
 * with the role the endpoint needs, in the order of decisions.md: no longer a member `404`, no
 * longer in that role `403`. The request was authorized when it arrived, but a write may wait
 * before it reaches its transaction (a brief's rendering, an upload's body); a membership removed
 * or demoted meanwhile must not write. The membership row is locked `FOR SHARE` to the commit, so
 * a removal or a role change made now waits until this write is done (it is then a change made
 * after the write, as if the write had not waited). A request whose client has gone away (or
 * that timed out) stops here too: nothing is stored for it.
 */
export async function checkCallerStillAllowed(
  tem: Em,
  organizationId: string,
  caller: { userId: string; signal?: AbortSignal },
  access: 'member' | 'admin' | 'owner',
): Promise<void> {
  if (caller.signal?.aborted) throw unavailable('timeout');
  const [row] = await tem.execute<{ role: Role; is_owner: boolean }[]>(
    'select role, is_owner from memberships where organization_id = ? and user_id = ? for share',
    [organizationId, caller.userId],
  );
  if (!row) throw notFound();
  if (access === 'admin' && row.role !== 'admin') throw forbidden();
  if (access === 'owner' && !row.is_owner) throw forbidden();
}
