/**
 * The writes that take no body (deletes, transitions, some test helpers) answer as usual when the
 * request carries a `Content-Type` of any kind and no body: axios sends
 * `application/x-www-form-urlencoded` on a bodiless POST, other clients `text/plain` or their
 * default JSON. Before, every type without a parser was an undocumented `415` (issue #29). Sent
 * on a real socket with `node:http`, as those clients send it (`Content-Length: 0`).
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type NamedEndpoint, publicEndpoints, testHelperEndpointList } from '@app/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_HELPERS_KEY, useTestServer } from './harness.js';
import { buildWorld, paramsFor, urlOf, type World } from './security/world.js';

const server = useTestServer({}, {}, { keepData: true });

/** Every write without a body. */
const bodiless = [...publicEndpoints, ...testHelperEndpointList].filter(
  (e) => e.method !== 'GET' && e.body === undefined,
);

let world: World;
let port: number;
beforeAll(async () => {
  world = await buildWorld(server);
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  port = (server.app.server.address() as AddressInfo).port;
});

/** One request on its own connection, with an empty body: the status and the body as text. */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function call(e: NamedEndpoint, contentType: string) {
  const helper = e.access === 'test-helpers';
  const params = await paramsFor(server, world, e, { user: world.owner, fresh: true });
  return send(e.method, urlOf(e, params), {
    authorization: `Bearer ${helper ? TEST_HELPERS_KEY : world.owner.token}`,
    'content-type': contentType,
    'content-length': '0',
  });
}

describe('a bodiless write with a Content-Type and no body answers as without one', () => {
  it('covers every write without a body: deletes, transitions and the sandbox helpers', () => {
    expect(bodiless.map((e) => e.name)).toEqual([
      'organizations.delete',
      'collabs.delete',
      'collabs.submit',
      'collabs.pause',
      'collabs.unpause',
      'campaigns.delete',
      'campaigns.publish',
      'campaigns.pause',
      'campaigns.resume',
      'members.delete',
      'socialAccounts.delete',
      'address.delete',
      'accessTokens.delete',
      'testHelpers.createSubmission',
      'testHelpers.createPushSubscription',
      'testHelpers.reset',
    ]);
  });

  it.each(bodiless.filter((e) => e.name !== 'testHelpers.reset').map((e) => [e.name, e] as const))(
    '%s: application/x-www-form-urlencoded (axios)',
    async (_, e) => {
      const res = await call(e, 'application/x-www-form-urlencoded');
      expect(res.status, res.body).toBe(e.status);
    },
  );

  it.each(['text/plain;charset=UTF-8', 'application/xml', 'application/json', 'multipart/form-data'])(
    'collabs.submit with %s',
    async (type) => {
      const e = bodiless.find((x) => x.name === 'collabs.submit') as NamedEndpoint;
      const res = await call(e, type);
      expect(res.status, res.body).toBe(303);
    },
  );
});

describe('a body that is there is still read by its type', () => {
  it('a bodiless write sent a form body is 415, as before', async () => {
    const e = bodiless.find((x) => x.name === 'collabs.submit') as NamedEndpoint;
    const params = await paramsFor(server, world, e, { user: world.owner, fresh: true });
    const res = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: urlOf(e, params),
          agent: false,
          headers: {
            authorization: `Bearer ${world.owner.token}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
        },
        (r) => {
          r.resume();
          resolve(r.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('a=1');
    });
    expect(res).toBe(415);
  });
});

describe('the sandbox reset (last: it empties everything)', () => {
  it('testHelpers.reset: application/x-www-form-urlencoded (axios)', async () => {
    const e = bodiless.find((x) => x.name === 'testHelpers.reset') as NamedEndpoint;
    const res = await call(e, 'application/x-www-form-urlencoded');
    expect(res.status, res.body).toBe(204);
  });
});
