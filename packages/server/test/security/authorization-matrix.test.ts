/**
 * Authorization matrix: every endpoint of `publicEndpoints` × every kind of caller, generated from
 * the table (an endpoint added to it is in the matrix the same day). Expected statuses follow the
 * spec and decisions.md: 401 for no, revoked, or read token on a write; 404 for a non-member on an
 * organization-scoped endpoint; 403 for a member lacking the role; otherwise the endpoint's
 * success status with a valid request. Every denied request must leave the database unchanged.
 */
import { randomBytes } from 'node:crypto';
import {
  FORBIDDEN_MESSAGE,
  type NamedEndpoint,
  NOT_FOUND_MESSAGE,
  publicEndpoints,
  testHelperEndpointList,
} from '@app/schemas';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_HELPERS_KEY, useTestServer } from '../harness.js';
import { type Digest, digester } from './database-dump.js';
import { rejectionShapeProblem, writeReport } from './shapes.js';
import {
  buildWorld,
  CALLER_KINDS,
  type CallerKind,
  ensureAddress,
  isOrganizationScoped,
  needsFreshTarget,
  paramsFor,
  resourceOfId,
  roleOf,
  tokenOf,
  urlOf,
  userOf,
  type World,
} from './world.js';
import { exampleOf } from './zod-arbitrary.js';

const server = useTestServer({}, {}, { keepData: true });
const { digest } = digester(server);
let world: World;

beforeAll(async () => {
  world = await buildWorld(server);
});

/** The status a caller kind must get from an endpoint. */
function expectedStatus(e: NamedEndpoint, kind: CallerKind): number {
  if (kind === 'none' || kind === 'revoked') return 401;
  if (kind === 'read' && e.method !== 'GET') return 401;
  if (!isOrganizationScoped(e)) return e.status;
  const role = roleOf(kind);
  if (role === null) return 404;
  if (e.access === 'admin' && role === 'member') return 403;
  if (e.access === 'owner' && role !== 'owner') return 403;
  // The matrix's target membership is someone else's: a member may only remove themselves.
  if (e.access === 'admin-or-self' && role === 'member') return 403;
  return e.status;
}

/** A payload the endpoint accepts, derived from its schema (a fresh URL where one must be unique). */
function validBody(e: NamedEndpoint): unknown {
  if (!e.body) return undefined;
  const unique = randomBytes(6).toString('hex');
  const overrides: Record<string, unknown> = {
    'socialAccounts.create': { platform_id: 'twitch', account_url: `https://twitch.tv/m${unique}` },
  };
  const inner = overrides[e.name] ?? exampleOf(e.body.schema, { strings: [] });
  if (inner === undefined) throw new Error(`No valid example payload for ${e.name}`);
  return e.body.key === null ? inner : { [e.body.key]: inner };
}

const DENIAL_BODIES: Record<number, unknown> = {
  403: { error: FORBIDDEN_MESSAGE },
  404: { error: NOT_FOUND_MESSAGE },
};

async function expectDenied(res: LightMyRequestResponse, status: number, before: Digest) {
  expect(res.statusCode, res.body).toBe(status);
  expect(rejectionShapeProblem(res)).toBeNull();
  if (status !== 401) expect(res.json()).toEqual(DENIAL_BODIES[status]);
  expect(await digest()).toEqual(before);
}

const cases = publicEndpoints.flatMap((e) =>
  CALLER_KINDS.map((kind) => ({ e, kind, status: expectedStatus(e, kind) })),
);
const tally: Record<string, number> = {};

afterAll(() => {
  const report = {
    endpoints: publicEndpoints.length,
    callerKinds: CALLER_KINDS.length,
    cases: cases.length,
    tally,
  };
  writeReport('authorization-matrix.json', report);
  console.info(`authorization matrix: ${cases.length} cases`, tally);
});

describe('authorization matrix', () => {
  it('has one case per endpoint of the table and kind of caller', () => {
    expect(new Set(cases.map((c) => `${c.e.method} ${c.e.path} ${c.kind}`)).size).toBe(
      publicEndpoints.length * CALLER_KINDS.length,
    );
    expect(cases).toHaveLength(publicEndpoints.length * CALLER_KINDS.length);
  });

  for (const { e, kind, status } of cases) {
    it(`${e.method} ${e.path} (${e.access}) as ${kind} → ${status}`, async () => {
      const user = userOf(world, kind);
      const params = await paramsFor(server, world, e, { user, fresh: needsFreshTarget(e) });
      if (e.path === '/me/address') await ensureAddress(server, user.token);
      const before = await digest();
      const res = await server.request(e.method, urlOf(e, params), {
        token: tokenOf(world, kind),
        body: validBody(e),
      });
      tally[String(res.statusCode)] = (tally[String(res.statusCode)] ?? 0) + 1;
      if (status === e.status) expect(res.statusCode, res.body).toBe(status);
      else await expectDenied(res, status, before);
    });
  }
});

describe("another user's /me resource is 404, never 403", () => {
  const ownedById = publicEndpoints.filter((e) => e.access === 'user' && e.path.includes(':id'));

  it('covers every user-scoped endpoint with an id', () => {
    expect(ownedById.map((e) => e.name).sort()).toEqual(
      publicEndpoints
        .filter((e) => e.path.startsWith('/me/') && e.path.includes(':id'))
        .map((e) => e.name)
        .sort(),
    );
  });

  for (const e of ownedById) {
    it(`${e.method} ${e.path} with the owner's id, as the member`, async () => {
      const params = await paramsFor(server, world, e, { user: world.owner, fresh: needsFreshTarget(e) });
      const before = await digest();
      const res = await server.request(e.method, urlOf(e, params), {
        token: world.member.token,
        body: validBody(e),
      });
      await expectDenied(res, 404, before);
    });
  }
});

/** What may differ between two answers that must be indistinguishable. */
const comparable = (res: LightMyRequestResponse) => {
  const { date: _date, 'request-id': _r, 'x-request-id': _x, ...headers } = res.headers;
  return { status: res.statusCode, headers, body: res.body };
};
const unknownId = () => randomBytes(12).toString('base64url');

describe('a hidden resource is answered exactly like one that does not exist', () => {
  const scoped = publicEndpoints.filter(isOrganizationScoped);

  for (const e of scoped) {
    it(`${e.method} ${e.path}: an organization the caller is not in`, async () => {
      const hidden = await paramsFor(server, world, e, {
        user: world.otherOwner,
        org: world.other,
        fresh: needsFreshTarget(e),
      });
      const missing = Object.fromEntries(Object.keys(hidden).map((k) => [k, unknownId()]));
      const before = await digest();
      const body = validBody(e);
      const a = await server.request(e.method, urlOf(e, hidden), { token: world.owner.token, body });
      const b = await server.request(e.method, urlOf(e, missing), { token: world.owner.token, body });
      await expectDenied(a, 404, before);
      expect(comparable(a)).toEqual(comparable(b));
    });

    if (!e.path.includes(':id') || resourceOfId(e.path) === 'organizations') continue;
    for (const kind of ['owner', 'member'] as const) {
      it(`${e.method} ${e.path}: another organization's ${resourceOfId(e.path)} id, as ${kind}`, async () => {
        const hidden = await paramsFor(server, world, e, {
          user: world.otherOwner,
          org: world.other,
          fresh: needsFreshTarget(e),
        });
        const inOwn = { ...hidden, organization_id: world.org };
        const missing = { ...inOwn, id: unknownId() };
        const before = await digest();
        const body = validBody(e);
        const a = await server.request(e.method, urlOf(e, inOwn), { token: world[kind].token, body });
        const b = await server.request(e.method, urlOf(e, missing), { token: world[kind].token, body });
        // The role is checked before the lookup only where it does not depend on the target.
        const status = e.access === 'admin' && kind === 'member' ? 403 : 404;
        await expectDenied(a, status, before);
        expect(comparable(a)).toEqual(comparable(b));
      });
    }
  }
});

describe('test helpers', () => {
  for (const e of testHelperEndpointList) {
    it(`${e.method} ${e.path} without the key → 401`, async () => {
      const params = await paramsFor(server, world, e, { user: world.owner });
      const before = await digest();
      for (const authorization of [undefined, `Bearer ${TEST_HELPERS_KEY}x`, `Bearer ${world.owner.token}`]) {
        const res = await server.post(urlOf(e, params), {
          headers: authorization ? { authorization } : {},
          body: {},
        });
        await expectDenied(res, 401, before);
      }
    });
  }
});

describe('test helpers when no key is configured', () => {
  const disabled = useTestServer({ testHelpersKey: undefined });

  for (const e of testHelperEndpointList) {
    it(`${e.method} ${e.path} → 404 even with the usual key`, async () => {
      const params = Object.fromEntries([...e.path.matchAll(/:([a-z_]+)/g)].map((m) => [m[1], unknownId()]));
      const res = await disabled.post(urlOf(e, params), {
        headers: { authorization: `Bearer ${TEST_HELPERS_KEY}` },
      });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: NOT_FOUND_MESSAGE });
    });
  }
});
