/**
 * The error answers an SDK user rarely provokes but a client in another language will: a missing
 * token, no JSON asked for, a body that is not JSON or is too large, an unsupported content
 * type, an empty-body 404, a 304. Each is checked here for its status, headers and body, and, in
 * `pnpm test:contract`, by Prism against the published document.
 */
import { acceptsAsIs, endpoints } from '@app/schemas';
import { beforeAll, describe, expect, test } from 'vitest';
import type * as z from 'zod';
import { recordingFetch, type TestUser, useServer } from './harness.js';

const server = useServer();
const send = recordingFetch(server.traffic);
let alice: TestUser;
let orgId: string;

const call = (path: string, init: RequestInit & { token?: string | null } = {}) => {
  const { token = alice.token, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token) headers.set('authorization', `Bearer ${token}`);
  return send(`${server.url}${path}`, { ...rest, headers });
};
const json = { 'content-type': 'application/json' };

beforeAll(async () => {
  alice = await server.newUser('Alice Wire');
  orgId = (await alice.client.organizations.create({ name: 'Wire Co' })).id;
});

describe('answers outside the happy path', () => {
  test('401: no token, an unknown token; text/plain with WWW-Authenticate', async () => {
    for (const token of [null, 'mkt_not_a_token']) {
      const res = await call('/organizations.json', { token });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Token realm="Application"');
      expect(res.headers.get('content-type')).toContain('text/plain');
      expect(await res.text()).toBe('HTTP Token: Access denied.');
    }
  });

  test('406: neither the .json suffix nor Accept: application/json', async () => {
    const res = await call('/organizations', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(406);
    expect(res.headers.get('content-type')).toContain('text/plain');
  });

  test('400: a body that is not JSON', async () => {
    const res = await call('/organizations.json', {
      method: 'POST',
      headers: json,
      body: '{"organization":',
    });
    expect(res.status).toBe(400);
    expect(Object.keys((await res.json()) as object)).toEqual(['error']);
  });

  test('415: a body of an unsupported type; 413: a JSON body over 1 MiB', async () => {
    const xml = await call('/organizations.json', {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      body: '<organization/>',
    });
    expect(xml.status).toBe(415);
    expect(Object.keys((await xml.json()) as object)).toEqual(['error']);
    const big = await call(`/organizations/${orgId}.json`, {
      method: 'PATCH',
      headers: json,
      body: JSON.stringify({ organization: { name: 'x'.repeat(1024 * 1024 + 1) } }),
    });
    expect(big.status).toBe(413);
    expect(Object.keys((await big.json()) as object)).toEqual(['error']);
  });

  test('404: JSON for an unknown organization, an empty body for a missing address', async () => {
    const org = await call('/organizations/nosuchorganization.json');
    expect(org.status).toBe(404);
    expect(await org.json()).toEqual({ error: 'Not found' });
    const address = await call('/me/address.json');
    expect(address.status).toBe(404);
    expect(await address.text()).toBe('');
  });

  test('304: If-None-Match with the current tag (and a list holding it)', async () => {
    const first = await call(`/organizations/${orgId}.json`);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^W\//);
    for (const tags of [etag, `W/"other", ${etag}`]) {
      const again = await call(`/organizations/${orgId}.json`, { headers: { 'if-none-match': tags } });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
    }
  });

  test('a page past the last: 200 [] with the pagination headers', async () => {
    const res = await call('/organizations.json?page=99');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
    expect(res.headers.get('current-page')).toBe('99');
    expect(res.headers.get('total-pages')).toBe('1');
  });
});

describe("the server's answers, as the SDK's response check reads them", () => {
  test('every show and list takes the fast check, not zod in full (a server on an ephemeral port too)', async () => {
    const org = await alice.client.organizations.create({
      name: 'Fast Co',
      website: 'https://fast.example.com',
    });
    const collab = await alice.client.collabs.create(org.id, { name: 'Fast collab', brief: '# Brief' });
    const campaign = await alice.client.campaigns.create(org.id, { name: 'Fast campaign' });
    const answers: Array<[string, z.ZodType | undefined, string]> = [
      ['organizations.list', endpoints.organizations.list.response, '/organizations.json'],
      ['organizations.retrieve', endpoints.organizations.retrieve.response, `/organizations/${org.id}.json`],
      ['collabs.list', endpoints.collabs.list.response, `/organizations/${org.id}/collabs.json`],
      [
        'collabs.retrieve',
        endpoints.collabs.retrieve.response,
        `/organizations/${org.id}/collabs/${collab.id}.json`,
      ],
      ['campaigns.list', endpoints.campaigns.list.response, `/organizations/${org.id}/campaigns.json`],
      [
        'campaigns.retrieve',
        endpoints.campaigns.retrieve.response,
        `/organizations/${org.id}/campaigns/${campaign.id}.json`,
      ],
      ['members.list', endpoints.members.list.response, `/organizations/${org.id}/members.json`],
    ];
    expect(new URL(server.url).port).toMatch(/^\d+$/);
    for (const [name, schema, path] of answers) {
      const res = await call(path);
      expect([name, res.status]).toEqual([name, 200]);
      expect([name, acceptsAsIs(schema as z.ZodType, await res.json())]).toEqual([name, true]);
    }
  });
});
