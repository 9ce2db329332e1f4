/**
 * The cap on requests in progress is shared fairly (plugins/request-lifecycle.ts,
 * pipeline/callers.ts). Before, it was one pool for everybody: one token with 200 concurrent
 * keep-alive requests (or none, hammering `GET /health`) made two thirds and more of another
 * user's requests `503`, and `/health` and `/ready` answered `503` for seconds, so a load
 * balancer would have taken a healthy replica out. Now one client (a user, by a token that has
 * authenticated before; else an address) holds at most its share of the slots, its excess is
 * `503` with `Retry-After: 1` (cause `share`), and `/health` and `/ready` take no slot.
 *
 * Requests are held in progress by the brief renderer's test seam (fixtures/held-requests.ts);
 * nothing here waits for a time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { generateToken } from '../src/modules/access-tokens/token.js';
import { briefRenderer } from '../src/modules/briefs/brief.js';
import {
  admin as adminOf,
  expectUnavailable,
  heldCreates as heldCreatesOn,
  listOrganizations as listOrganizationsOn,
} from './fixtures/held-requests.js';
import { useTestServer } from './harness.js';
import { unavailableCounts } from './metrics-text.js';

const CAP = 4;
const SHARE = 2;

// No request timeout: the held requests wait for as long as the test decides.
const server = useTestServer(
  { maxInProgressPerClient: SHARE },
  { overload: { maxEventLoopDelay: 0, maxConcurrentRequests: CAP }, requestTimeout: 0 },
);

afterEach(() => {
  briefRenderer.hold(false);
});

const admin = (name: string) => adminOf(server, name);
const listOrganizations = (token: string | null, address = '127.0.0.1') =>
  listOrganizationsOn(server, token, { address });
const heldCreates = (token: string, organizationId: string, count: number, address = '127.0.0.1') =>
  heldCreatesOn(server, token, organizationId, count, { address });

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
    // No MARKETPLACE_TRUST_PROXY: an X-Forwarded-For is not read (trust-proxy.test.ts).
    expectUnavailable(
      await listOrganizationsOn(server, null, {
        address: attacker,
        headers: { 'x-forwarded-for': '10.0.0.67' },
      }),
    );
    // Another address, and a known user's token from that same address, still get slots.
    expect((await listOrganizations(null, '10.0.0.67')).statusCode).toBe(401);
    expect((await listOrganizations(victim.user.token, attacker)).statusCode).toBe(200);

    briefRenderer.hold(false);
    for (const answer of await Promise.all(held)) expect(answer.statusCode).toBe(201);
    expect((await listOrganizations(generateToken(), attacker)).statusCode).toBe(401);
  });
});

describe('an IPv6 client is its /64', () => {
  it('counts requests without a known token from addresses of one /64 against one share', async () => {
    const first = await admin('First');
    const second = await admin('Second');
    briefRenderer.hold(true);
    // Two addresses of one /64 (what one host, or one subscriber's line, is given): one client.
    const held = [
      ...(await heldCreates(first.user.token, first.organizationId, 1, '2001:db8:1:2::66')),
      ...(await heldCreates(second.user.token, second.organizationId, 1, '2001:db8:1:2:aaaa::67')),
    ];
    expectUnavailable(await listOrganizations(null, '2001:db8:1:2::68'));
    expectUnavailable(await listOrganizations(generateToken(), '2001:db8:1:2:ffff:ffff:ffff:ffff'));
    // Another /64, and an IPv4 client, still get slots.
    expect((await listOrganizations(null, '2001:db8:1:3::66')).statusCode).toBe(401);
    expect((await listOrganizations(null, '10.0.0.68')).statusCode).toBe(401);

    briefRenderer.hold(false);
    for (const answer of await Promise.all(held)) expect(answer.statusCode).toBe(201);
  });
});
