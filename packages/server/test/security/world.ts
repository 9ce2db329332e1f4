/**
 * The fixture world of the security suites, built through the public API and the test helpers
 * (as an integrator would): an organization with an owner, an admin and a member, each with a
 * collab, a campaign, social accounts, spare access tokens and an address; a second organization
 * with its own owner and resources; a read token and a revoked token.
 *
 * Path parameters are resolved from the endpoint's path template, so an endpoint added to the
 * table with a parameter this file does not know fails loudly instead of being skipped.
 */
import { randomBytes } from 'node:crypto';
import type { NamedEndpoint } from '@app/schemas';
import { expect } from 'vitest';
import { TEST_HELPERS_KEY, type TestServer, type TestUser } from '../harness.js';

export const CALLER_KINDS = ['none', 'revoked', 'read', 'nonMember', 'member', 'admin', 'owner'] as const;
export type CallerKind = (typeof CALLER_KINDS)[number];

export interface World {
  /** The organization the matrix is about. */
  org: string;
  /** A second organization; its owner is the matrix's "non-member". */
  other: string;
  owner: TestUser;
  admin: TestUser;
  member: TestUser;
  otherOwner: TestUser;
  /** The owner's read token and a revoked token of the owner. */
  readToken: string;
  revokedToken: string;
  memberships: { owner: string; admin: string; member: string; otherOwner: string };
  collab: string;
  campaign: string;
  otherCollab: string;
  otherCampaign: string;
  /** One social account and one spare access token per user id. */
  socialAccounts: Record<string, string>;
  accessTokens: Record<string, string>;
}

const helper = { authorization: `Bearer ${TEST_HELPERS_KEY}` };
const unique = () => randomBytes(6).toString('hex');

async function expectStatus(
  res: Promise<{ statusCode: number; body: string; json(): unknown }>,
  status: number,
): Promise<Record<string, unknown>> {
  const r = await res;
  if (r.statusCode !== status) expect.fail(`set-up request answered ${r.statusCode}: ${r.body}`);
  return (r.body ? r.json() : {}) as Record<string, unknown>;
}

export async function helperPost(server: TestServer, path: string, body?: unknown, status = 201) {
  return expectStatus(
    server.post(`/test_helpers${path}.json`, { headers: helper, ...(body !== undefined && { body }) }),
    status,
  );
}

export async function createOrganization(server: TestServer, owner: TestUser): Promise<string> {
  const org = await expectStatus(
    server.post('/organizations.json', { token: owner.token, body: { organization: { name: 'Org' } } }),
    201,
  );
  return org.id as string;
}

export async function addMember(server: TestServer, org: string, user: TestUser, role: 'admin' | 'member') {
  const m = await helperPost(server, `/organizations/${org}/members`, {
    membership: { user_id: user.user.id, role },
  });
  return m.id as string;
}

export async function createCollab(server: TestServer, org: string, token: string, state?: string) {
  const c = await expectStatus(server.post(`/organizations/${org}/collabs.json`, { token }), 201);
  if (state) await helperPost(server, `/organizations/${org}/collabs/${c.id}/state`, { state }, 200);
  return c.id as string;
}

export async function createCampaign(
  server: TestServer,
  org: string,
  token: string,
  setup: { funded?: boolean; status?: string } = {},
) {
  const c = await expectStatus(
    server.post(`/organizations/${org}/campaigns.json`, { token, body: { campaign: {} } }),
    201,
  );
  if (setup.funded)
    await helperPost(server, `/organizations/${org}/campaigns/${c.id}/fundings`, {
      funding: { amount: 100 },
    });
  if (setup.status)
    await helperPost(server, `/organizations/${org}/campaigns/${c.id}/status`, { status: setup.status }, 200);
  return c.id as string;
}

export async function createSocialAccount(server: TestServer, token: string) {
  const a = await expectStatus(
    server.post('/me/social_accounts.json', {
      token,
      body: {
        social_account: { platform_id: 'youtube', account_url: `https://www.youtube.com/@u${unique()}` },
      },
    }),
    201,
  );
  return a.id as string;
}

export async function createAccessToken(server: TestServer, token: string, permission = 'write') {
  const t = await expectStatus(
    server.post('/me/access_tokens.json', {
      token,
      body: { access_token: { description: 'spare', permission } },
    }),
    201,
  );
  return { id: t.id as string, token: t.token as string };
}

export async function ensureAddress(server: TestServer, token: string) {
  await expectStatus(
    server.patch('/me/address.json', {
      token,
      body: {
        address: {
          address_one: '1 Main St',
          city: 'Springfield',
          state: 'IL',
          postal_code: '62701',
          country_code: 'US',
        },
      },
    }),
    200,
  );
}

export async function buildWorld(server: TestServer): Promise<World> {
  const owner = await server.createUser({ name: 'Owner' });
  const admin = await server.createUser({ name: 'Admin' });
  const member = await server.createUser({ name: 'Member' });
  const otherOwner = await server.createUser({ name: 'Other owner' });

  const org = await createOrganization(server, owner);
  const other = await createOrganization(server, otherOwner);
  const ownerMembership = await server.sql<{ id: string; organization_id: string }>(
    'select id, organization_id from memberships where is_owner',
  );
  const ownerOf = (o: string) => ownerMembership.find((m) => m.organization_id === o)?.id as string;

  const readToken = (await createAccessToken(server, owner.token, 'read')).token;
  const revoked = await createAccessToken(server, owner.token);
  await expectStatus(server.delete(`/me/access_tokens/${revoked.id}.json`, { token: owner.token }), 204);

  const socialAccounts: Record<string, string> = {};
  const accessTokens: Record<string, string> = {};
  for (const person of [owner, admin, member, otherOwner]) {
    socialAccounts[person.user.id] = await createSocialAccount(server, person.token);
    accessTokens[person.user.id] = (await createAccessToken(server, person.token)).id;
    await ensureAddress(server, person.token);
  }

  return {
    org,
    other,
    owner,
    admin,
    member,
    otherOwner,
    readToken,
    revokedToken: revoked.token,
    memberships: {
      owner: ownerOf(org),
      admin: await addMember(server, org, admin, 'admin'),
      member: await addMember(server, org, member, 'member'),
      otherOwner: ownerOf(other),
    },
    collab: await createCollab(server, org, owner.token),
    campaign: await createCampaign(server, org, owner.token),
    otherCollab: await createCollab(server, other, otherOwner.token),
    otherCampaign: await createCampaign(server, other, otherOwner.token),
    socialAccounts,
    accessTokens,
  };
}

/** The token a caller kind sends (null: no Authorization header). */
export function tokenOf(world: World, kind: CallerKind): string | null {
  switch (kind) {
    case 'none':
      return null;
    case 'revoked':
      return world.revokedToken;
    case 'read':
      return world.readToken;
    case 'nonMember':
      return world.otherOwner.token;
    default:
      return world[kind].token;
  }
}

/** The user behind a caller kind (the owner for the kinds that never get past authentication). */
export function userOf(world: World, kind: CallerKind): TestUser {
  if (kind === 'nonMember') return world.otherOwner;
  if (kind === 'member' || kind === 'admin') return world[kind];
  return world.owner;
}

/** The organization role a caller kind holds in `world.org`. */
export function roleOf(kind: CallerKind): 'owner' | 'admin' | 'member' | null {
  if (kind === 'read' || kind === 'owner') return 'owner';
  if (kind === 'admin' || kind === 'member') return kind;
  return null;
}

/** Which resource a path's `:id` names, read from the segment before it. */
export function resourceOfId(path: string): string {
  const match = /\/([a-z_]+)\/:id(?:\/|$)/.exec(path);
  if (!match) throw new Error(`No ':id' in ${path}`);
  return match[1] as string;
}

/** Whether an endpoint acts inside one organization (tenancy: non-members get 404). */
export const isOrganizationScoped = (e: NamedEndpoint) =>
  e.access === 'member' || e.access === 'admin' || e.access === 'owner' || e.access === 'admin-or-self';

/**
 * Endpoints that change or remove their target, and the state each needs to succeed; they get a
 * fresh target per request so that one case never spoils the next.
 */
const TRANSITION_SETUP: Record<
  string,
  { collabState?: string; campaign?: { funded?: boolean; status?: string } }
> = {
  'collabs.submit': {},
  'collabs.pause': { collabState: 'published' },
  'collabs.unpause': { collabState: 'paused' },
  'campaigns.publish': { campaign: { funded: true } },
  'campaigns.pause': { campaign: { status: 'active' } },
  'campaigns.resume': { campaign: { status: 'paused' } },
};

export const needsFreshTarget = (e: NamedEndpoint) => e.method === 'DELETE' || e.status === 303;

/**
 * Path parameters of an endpoint for a request by `user` in `org`: the world's resources, or
 * fresh ones (made by the organization's owner) when `fresh` is set.
 */
export async function paramsFor(
  server: TestServer,
  world: World,
  e: NamedEndpoint,
  options: { user: TestUser; org?: string; fresh?: boolean },
): Promise<Record<string, string>> {
  const org = options.org ?? world.org;
  const orgOwner = org === world.other ? world.otherOwner : world.owner;
  const fresh = options.fresh === true;
  const params: Record<string, string> = {};
  for (const name of [...e.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1] as string)) {
    if (name === 'organization_id') params[name] = org;
    else if (name === 'user_id') params[name] = options.user.user.id;
    else if (name === 'id')
      params[name] = await idFor(server, world, e, { ...options, org, orgOwner, fresh });
    else throw new Error(`Unknown path parameter :${name} in ${e.name}`);
  }
  return params;
}

async function idFor(
  server: TestServer,
  world: World,
  e: NamedEndpoint,
  o: { user: TestUser; org: string; orgOwner: TestUser; fresh: boolean },
): Promise<string> {
  const inOther = o.org === world.other;
  const resource = resourceOfId(e.path);
  switch (resource) {
    case 'organizations': {
      if (!o.fresh) return o.org;
      // A fresh organization with the same people in the same roles.
      const org = await createOrganization(server, o.orgOwner);
      if (inOther) return org;
      await addMember(server, org, world.admin, 'admin');
      await addMember(server, org, world.member, 'member');
      return org;
    }
    case 'collabs': {
      const setup = TRANSITION_SETUP[e.name];
      if (e.status === 303 && !setup) throw new Error(`No set-up for the transition ${e.name}`);
      if (!o.fresh && !setup) return inOther ? world.otherCollab : world.collab;
      return createCollab(server, o.org, o.orgOwner.token, setup?.collabState);
    }
    case 'campaigns': {
      const setup = TRANSITION_SETUP[e.name];
      if (e.status === 303 && !setup) throw new Error(`No set-up for the transition ${e.name}`);
      if (!o.fresh && !setup) return inOther ? world.otherCampaign : world.campaign;
      return createCampaign(server, o.org, o.orgOwner.token, setup?.campaign);
    }
    case 'members': {
      if (!o.fresh) return inOther ? world.memberships.otherOwner : world.memberships.member;
      const victim = await server.createUser({ name: 'Victim' });
      return addMember(server, o.org, victim, 'member');
    }
    case 'social_accounts':
      return o.fresh
        ? createSocialAccount(server, o.user.token)
        : (world.socialAccounts[o.user.user.id] as string);
    case 'access_tokens':
      return o.fresh
        ? (await createAccessToken(server, o.user.token)).id
        : (world.accessTokens[o.user.user.id] as string);
    default:
      throw new Error(`Unknown resource '${resource}' of :id in ${e.name}`);
  }
}

export function urlOf(e: NamedEndpoint, params: Record<string, string>, query = ''): string {
  const path = e.path.replace(/:([a-z_]+)/g, (_, name: string) => encodeURIComponent(params[name] as string));
  return `${path}.json${query}`;
}
