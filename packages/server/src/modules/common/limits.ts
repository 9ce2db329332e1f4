import type { Em } from '../../db/database.js';
import { unprocessable } from '../../http/errors.js';

/**
 * How much one account may create, so that no one account fills the database: organizations a
 * user owns, a user's access tokens and social accounts, an organization's collabs and campaigns.
 * Generous by default; set with `MARKETPLACE_LIMIT_*` (README).
 */
export interface Limits {
  organizations: number;
  accessTokens: number;
  socialAccounts: number;
  collabsPerOrganization: number;
  campaignsPerOrganization: number;
}

export const DEFAULT_LIMITS: Limits = {
  organizations: 100,
  accessTokens: 100,
  socialAccounts: 100,
  collabsPerOrganization: 10_000,
  campaignsPerOrganization: 10_000,
};

/** What each limit counts (the rows `count` selects for the owner's id), and its lock namespace. */
const COUNTED: Record<keyof Limits, { count: string; noun: string; lock: number }> = {
  organizations: {
    count: 'select count(*)::int as count from memberships where user_id = ? and is_owner',
    noun: 'organizations',
    lock: 7_401,
  },
  accessTokens: {
    count: 'select count(*)::int as count from access_tokens where user_id = ?',
    noun: 'access tokens',
    lock: 7_402,
  },
  socialAccounts: {
    count: 'select count(*)::int as count from social_accounts where user_id = ?',
    noun: 'social accounts',
    lock: 7_403,
  },
  collabsPerOrganization: {
    count: 'select count(*)::int as count from collabs where organization_id = ?',
    noun: 'collabs',
    lock: 7_404,
  },
  campaignsPerOrganization: {
    count: 'select count(*)::int as count from campaigns where organization_id = ?',
    noun: 'campaigns',
    lock: 7_405,
  },
};

/**
 * Refuses one more row past the limit with `422 {"errors": {"base": [...]}}`. Call it inside the
 * create's transaction: it takes a lock per owner and kind, held to the commit, so concurrent
 * creates are counted one after the other and never overshoot.
 */
export async function checkLimit(
  tem: Em,
  kind: keyof Limits,
  ownerId: string,
  limits: Limits,
): Promise<void> {
  const { count, noun, lock } = COUNTED[kind];
  await tem.execute('select pg_advisory_xact_lock(?, hashtext(?))', [lock, ownerId]);
  const [row] = await tem.execute<{ count: number }[]>(count, [ownerId]);
  const max = limits[kind];
  if ((row?.count ?? 0) >= max)
    throw unprocessable({
      base: [`has reached the limit of ${max} ${noun}; delete some before creating more`],
    });
}

/**
 * Flushes what `em` holds (a new row of `kind`) in a transaction that first checks the limit, so
 * the count and the insert are one step for concurrent creates.
 */
export async function flushWithinLimit(
  em: Em,
  kind: keyof Limits,
  ownerId: string,
  limits: Limits,
): Promise<void> {
  await em.begin();
  try {
    await checkLimit(em, kind, ownerId, limits);
    await em.commit();
  } catch (error) {
    await em.rollback();
    throw error;
  }
}
