/**
 * Behind a reverse proxy (`MARKETPLACE_TRUST_PROXY`): the client a request is counted against, for
 * its share of the cap on requests in progress, is the address the named proxy put in
 * `X-Forwarded-For`, not the proxy's. Without the setting, every unauthenticated client behind one
 * proxy shared one share (client-share.test.ts shows the header is not read then), and every client
 * of a proxy on the same host looked like loopback to `GET /metrics`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { briefRenderer } from '../src/modules/briefs/brief.js';
import {
  admin,
  expectUnavailable,
  type From,
  heldCreates,
  listOrganizations,
} from './fixtures/held-requests.js';
import { useTestServer } from './harness.js';

// A proxy on the same host, as most are.
const PROXY = '127.0.0.1';

// No request timeout: the held requests wait for as long as the test decides.
const server = useTestServer(
  { maxInProgressPerClient: 1, trustProxy: [PROXY] },
  { overload: { maxEventLoopDelay: 0, maxConcurrentRequests: 4 }, requestTimeout: 0 },
);

afterEach(() => {
  briefRenderer.hold(false);
});

/** A request the proxy forwards: `forwarded` is its `X-Forwarded-For` (it appends the client's address). */
const via = (client: string, forwarded = client): From => ({
  address: PROXY,
  headers: { 'x-forwarded-for': forwarded },
});

it('counts each client behind a named proxy against its own address, which a client cannot choose; a peer that is not the proxy is its own address', async () => {
  const { user, organizationId } = await admin(server, 'Behind the proxy');
  briefRenderer.hold(true);
  // A token's first request counts against its address: this client now holds its share of 1.
  const held = await heldCreates(server, user.token, organizationId, 1, via('203.0.113.1'));
  expectUnavailable(await listOrganizations(server, null, via('203.0.113.1')));
  // An address the client wrote itself comes before the one the proxy appended: not read.
  expectUnavailable(await listOrganizations(server, null, via('203.0.113.1', '198.51.100.99, 203.0.113.1')));
  // Other clients behind the same proxy, and the proxy itself, have shares of their own.
  expect((await listOrganizations(server, null, via('203.0.113.2'))).statusCode).toBe(401);
  expect((await listOrganizations(server, null, { address: PROXY })).statusCode).toBe(401);
  // From an address that is not the proxy, the header is not read: no client can pose as another.
  expect(
    (
      await listOrganizations(server, null, {
        address: '198.51.100.7',
        headers: { 'x-forwarded-for': '203.0.113.1' },
      })
    ).statusCode,
  ).toBe(401);
  briefRenderer.hold(false);
  expect((await Promise.all(held)).map((answer) => answer.statusCode)).toEqual([201]);
});

it('answers GET /metrics (loopback clients only, without a metrics token) to the proxy host itself, not to a client the proxy forwards', async () => {
  expect((await server.app.inject({ url: '/metrics', remoteAddress: PROXY })).statusCode).toBe(200);
  const forwarded = await server.app.inject({ url: '/metrics', ...via('203.0.113.1') });
  expect({ status: forwarded.statusCode, body: forwarded.json() }).toEqual({
    status: 404,
    body: { error: 'Not found' },
  });
});

describe('MARKETPLACE_TRUST_PROXY=1: one proxy in front, whatever its address', () => {
  const oneHop = useTestServer({ trustProxy: 1 });

  it('takes the client from the last X-Forwarded-For entry, the one the proxy appended', async () => {
    const metricsFrom = async (forwarded?: string) =>
      (
        await oneHop.app.inject({
          url: '/metrics',
          remoteAddress: '10.9.8.7',
          headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
        })
      ).statusCode;
    // A loopback client through the proxy may read the metrics; a remote one, posing as loopback
    // in front of the proxy's entry, may not.
    expect(await metricsFrom('127.0.0.1')).toBe(200);
    expect(await metricsFrom('127.0.0.1, 203.0.113.1')).toBe(404);
    expect(await metricsFrom('203.0.113.1')).toBe(404);
  });
});
