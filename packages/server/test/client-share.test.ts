/**
 * The cap on requests in progress is shared fairly (plugins/request-lifecycle.ts,
 * pipeline/callers.ts). Before, it was one pool for everybody: one token with 200 concurrent
 * keep-alive requests (or none, hammering `GET /health`) made two thirds and more of another
 * user's requests `503`, and `/health` and `/ready` answered `503` for seconds, so a load
 * balancer would have taken a healthy replica out. Now one client (a user, by a token that has
 * authenticated before; else an address) holds at most its share of the slots, its excess is
 * `503` with `Retry-After: 1` (cause `share`), and `/health` and `/ready` take no slot.
 *
 * Requests are held in progress by the brief renderer's test seam (`briefRenderer.hold`): a
 * collab create with a brief holds its slot while its brief waits to be rendered. The renderer's
 * `queued` event tells when it waits; nothing here waits for a time.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { generateToken } from '../src/modules/access-tokens/token.js';
import { briefRenderer } from '../src/modules/briefs/brief.js';
import { insertOrganization } from './fixtures/organization.js';
import { type TestUser, useTestServer } from './harness.js';
import { unavailableCounts } from './metrics-text.js';

const CAP = 4;
const SHARE = 2;
const UNAVAILABLE = { error: 'Service temporarily unavailable' };

// No request timeout: the held requests wait for as long as the test decides.
const server = useTestServer(
  { maxInProgressPerClient: SHARE },
  { overload: { maxEventLoopDelay: 0, maxConcurrentRequests: CAP }, requestTimeout: 0 },
);

afterEach(() => {
  briefRenderer.hold(false);
});

let nonce = 0;

/** Resolves once the renderer has queued `count` more briefs. */
function queuedBriefs(count: number): Promise<void> {
  let seen = 0;
  return new Promise((resolve) => {
    const listener = () => {
      if (++seen < count) return;
      briefRenderer.events.off('queued', listener);
      resolve();
    };
    briefRenderer.events.on('queued', listener);
  });
}

/** A user who is the owner of an organization of their own. */
async function admin(name: string): Promise<{ user: TestUser; organizationId: string }> {
  const user = await server.createUser({ name });
  const organizationId = await insertOrganization(server, [{ user, role: 'admin', owner: true }]);
  return { user, organizationId };
}

/** `GET /organizations.json` with `token`, from `address`. */
const listOrganizations = (token: string | null, address = '127.0.0.1') =>
  server.app.inject({
    method: 'GET',
    url: '/organizations.json',
    remoteAddress: address,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });

/**
 * Collab creates whose briefs the held renderer keeps waiting: resolved once all of them wait
 * (each holds a slot), with their answers to come.
 */
async function heldCreates(
  token: string,
  organizationId: string,
  count: number,
  address = '127.0.0.1',
): Promise<Promise<LightMyRequestResponse>[]> {
  const queued = queuedBriefs(count);
  const answers = Array.from({ length: count }, () =>
    server.app.inject({
      method: 'POST',
      url: `/organizations/${organizationId}/collabs.json`,
      remoteAddress: address,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: { collab: { brief: `A brief *${Date.now()}-${++nonce}*` } },
    }),
  );
  await queued;
  return answers;
}

function expectUnavailable(answer: LightMyRequestResponse): void {
  expect({
    status: answer.statusCode,
    retryAfter: answer.headers['retry-after'],
    body: answer.json(),
  }).toEqual({
    status: 503,
    retryAfter: '1',
    body: UNAVAILABLE,
  });
}

describe(`a cap of ${CAP} requests in progress, ${SHARE} per client`, () => {
  it("keeps slots for another user while one holds its share (every token of its user's), and answers /health and /ready while the cap is full", async () => {
    const hog = await admin('Hog');
    const other = await admin('Other');
    const victim = await admin('Victim');
    // The test databases are built from the entities: record the migrations as applied (/ready).
    await server.orm.migrator.getStorage().ensureTable?.();
    for (const m of await server.orm.migrator.getPending())
      await server.orm.migrator.getStorage().logMigration({ name: m.name });
    const hogsSecond = (
      await server.post('/me/access_tokens.json', {
        token: hog.user.token,
        body: { access_token: { description: 'second', permission: 'read' } },
      })
    ).json().token as string;
    // Every token authenticates once: from then on its requests count against its user.
    for (const token of [hog.user.token, hogsSecond, other.user.token, victim.user.token])
      expect((await listOrganizations(token)).statusCode).toBe(200);
    const before = unavailableCounts((await server.get('/metrics')).body);

    briefRenderer.hold(true);
    const hogs = await heldCreates(hog.user.token, hog.organizationId, SHARE);
    // The hog has its share: its next requests are 503, with either of its tokens.
    expectUnavailable(await listOrganizations(hog.user.token));
    expectUnavailable(await listOrganizations(hogsSecond));
    // Another user still gets a slot.
    expect((await listOrganizations(victim.user.token)).statusCode).toBe(200);

    // A second user takes its share too: the cap is full, for everybody but the probes.
    const others = await heldCreates(other.user.token, other.organizationId, SHARE);
    expectUnavailable(await listOrganizations(victim.user.token));
    for (const path of ['/health', '/ready']) {
      const probe = await server.get(path);
      expect({ path, status: probe.statusCode }).toEqual({ path, status: 200 });
    }

    briefRenderer.hold(false);
    for (const answer of await Promise.all([...hogs, ...others])) expect(answer.statusCode).toBe(201);
    expect((await listOrganizations(hog.user.token)).statusCode).toBe(200);
    const after = unavailableCounts((await server.get('/metrics')).body);
    expect({ share: after.share - before.share, overload: after.overload - before.overload }).toEqual({
      share: 2,
      overload: 1,
    });
  });

  it('counts requests without a known token against their address: a made-up token takes no user’s share and gets no share of its own', async () => {
    const first = await admin('First');
    const second = await admin('Second');
    const victim = await admin('Victim');
    expect((await listOrganizations(victim.user.token)).statusCode).toBe(200);
    const attacker = '10.0.0.66';

    briefRenderer.hold(true);
    // Tokens never seen before: their first requests count against the address they come from.
    const held = [
      ...(await heldCreates(first.user.token, first.organizationId, 1, attacker)),
      ...(await heldCreates(second.user.token, second.organizationId, 1, attacker)),
    ];
    // That address has its share: no token, or a token it made up (well-formed, unknown), is 503
    // before any lookup, whatever the token.
    expectUnavailable(await listOrganizations(null, attacker));
    expectUnavailable(await listOrganizations(generateToken(), attacker));
    expectUnavailable(await listOrganizations(generateToken(), attacker));
    // Another address, and a known user's token from that same address, still get slots.
    expect((await listOrganizations(null, '10.0.0.67')).statusCode).toBe(401);
    expect((await listOrganizations(victim.user.token, attacker)).statusCode).toBe(200);

    briefRenderer.hold(false);
    for (const answer of await Promise.all(held)) expect(answer.statusCode).toBe(201);
    expect((await listOrganizations(generateToken(), attacker)).statusCode).toBe(401);
  });
});
