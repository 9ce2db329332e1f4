/**
 * What the fuzz suite found, each pinned by a plain test (docs/reliability.md, "Fuzzing").
 */
import { FORBIDDEN_MESSAGE } from '@app/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_HELPERS_KEY, useTestServer } from '../harness.js';
import { unavailableCounts, unavailableSince } from '../metrics-text.js';
import { digester } from './database-dump.js';
import { buildWorld, type World } from './world.js';

const server = useTestServer({}, {}, { keepData: true });
const { digest } = digester(server);
let world: World;

beforeAll(async () => {
  world = await buildWorld(server);
});

const NOT_FOUND = { error: 'Not found' };

describe('a path the router cannot take apart gets a documented error body', () => {
  it('a malformed percent-encoding is 400 {"error"}, not Fastify\'s own body', async () => {
    for (const id of ['%', '%zz', '%C0%AF'.slice(0, 4)]) {
      const res = await server.patch(`/organizations/${id}.json`, {
        token: world.owner.token,
        body: { organization: { name: 'X' } },
      });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual({ error: 'The request URL is malformed' });
    }
  });

  it('an id longer than the router takes (8 KiB) is an unknown id: 404, not 414', async () => {
    const res = await server.delete(`/me/access_tokens/${'x'.repeat(20_000)}.json`, {
      token: world.owner.token,
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(NOT_FOUND);
  });

  it('an empty path segment where an id goes (`collabs/.json`, a trailing slash) names no route: 404 {"error"} before the token and the JSON selection, and changes nothing', async () => {
    const before = await digest();
    const o = world.org;
    const cases: [method: 'get' | 'post' | 'patch' | 'delete', url: string, body?: object][] = [
      ['get', `/organizations/${o}/collabs/.json`],
      ['patch', `/organizations/${o}/collabs/.json`, { collab: { name: 'X' } }],
      ['get', `/organizations/${o}/campaigns/.json`],
      ['delete', `/organizations/${o}/campaigns/.json`],
      ['patch', `/organizations/${o}/members/.json`, { membership: { role: 'admin' } }],
      ['delete', `/organizations/${o}/members/.json`],
      ['get', '/me/social_accounts/.json'],
      ['delete', '/me/access_tokens/.json'],
      ['post', `/organizations/${o}/collabs//submit.json`],
      ['post', `/organizations/${o}/campaigns//publish.json`],
      ['get', '/organizations//collabs.json'],
      ['get', `/organizations/${o}/collabs/`],
      ['get', '/me/social_accounts/'],
      ['get', '/organizations/'],
    ];
    for (const [method, url, body] of cases)
      for (const token of [world.owner.token, undefined])
        for (const headers of [{ accept: 'application/json' }, {}] as Record<string, string>[]) {
          const res = await server[method](url, { token, headers, ...(body && { body }) });
          expect([method, url, token !== undefined, headers, res.statusCode]).toEqual([
            method,
            url,
            token !== undefined,
            headers,
            404,
          ]);
          expect(res.json()).toEqual(NOT_FOUND);
        }
    expect(await digest()).toEqual(before);
  });
});

describe('multipart', () => {
  it('a file under a prototype key is skipped and the form still ends (it used to hang until the timeout)', async () => {
    const form = new FormData();
    form.append('organization[name]', 'Acme');
    form.append(
      'organization[__proto__]',
      new File([new Uint8Array([1, 2, 3])], 'x.png', { type: 'image/png' }),
    );
    const scrape = async () => unavailableCounts((await server.get('/metrics')).body);
    const before = await scrape();
    const res = await server.post('/organizations.json', { token: world.owner.token, form });
    // A form that never ends is answered by the request timeout: a 503 counted with cause timeout.
    expect(res.statusCode).toBe(201);
    expect(unavailableSince(before, await scrape())).toMatchObject({ timeout: 0 });
    expect(res.json()).toMatchObject({ name: 'Acme' });
    expect(res.json()).not.toHaveProperty('logo_url');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('a NUL character (PostgreSQL text cannot hold one) is a 4xx, not a 500', () => {
  it('in an organization id: 404 after the token check', async () => {
    const before = await digest();
    const url = `/organizations/${encodeURIComponent(`${world.org}\u0000`)}.json`;
    expect((await server.patch(url, { body: { organization: { name: 'X' } } })).statusCode).toBe(401);
    const res = await server.patch(url, { token: world.owner.token, body: { organization: { name: 'X' } } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(NOT_FOUND);
    expect(await digest()).toEqual(before);
  });

  it('in the id of a resource: 404 (the role is still checked first)', async () => {
    const collab = encodeURIComponent('a\u0000b');
    const url = `/organizations/${world.org}/collabs/${collab}/unpause.json`;
    const member = await server.post(url, { token: world.member.token });
    expect(member.statusCode).toBe(403);
    expect(member.json()).toEqual({ error: FORBIDDEN_MESSAGE });
    const admin = await server.post(url, { token: world.owner.token });
    expect(admin.statusCode).toBe(404);
    expect(admin.json()).toEqual(NOT_FOUND);
    const helper = await server.post(`/test_helpers/users/${collab}/push_subscriptions.json`, {
      headers: { authorization: `Bearer ${TEST_HELPERS_KEY}` },
    });
    expect(helper.statusCode).toBe(404);
  });

  it('in a payload: 422 on the field, nothing stored', async () => {
    const before = await digest();
    const address = await server.patch('/me/address.json', {
      token: world.member.token,
      body: { address: { city: 'a\u0000b' } },
    });
    expect(address.statusCode).toBe(422);
    expect(address.json()).toEqual({ errors: { city: ['must not contain a NUL character'] } });

    const token = await server.post('/me/access_tokens.json', {
      token: world.member.token,
      body: { access_token: { description: '\u0000', permission: 'read' } },
    });
    expect(token.statusCode).toBe(422);
    expect(token.json()).toEqual({ errors: { description: ['must not contain a NUL character'] } });

    const notification = await server.post(`/test_helpers/users/${world.member.user.id}/notifications.json`, {
      headers: { authorization: `Bearer ${TEST_HELPERS_KEY}` },
      body: {
        notification: { type: 'T', record_type: 'R', record_id: '1', params: { deep: [{ 'k\u0000': 1 }] } },
      },
    });
    expect(notification.statusCode).toBe(422);
    expect(notification.json()).toEqual({ errors: { params: ['must not contain a NUL character'] } });
    expect(await digest()).toEqual(before);
  });
});

describe('a lone surrogate (JSON "\\ud800": text that is not Unicode) is a 422, not a 500 or another value', () => {
  const NOT_UNICODE = 'must be valid Unicode text (it holds a lone surrogate)';

  it('in a text field: 422 on the field, nothing stored (PostgreSQL would store U+FFFD while the 201 echoed the surrogate)', async () => {
    const before = await digest();
    const address = await server.patch('/me/address.json', {
      token: world.member.token,
      body: {
        address: { address_one: 'a\ud800', city: 'c', state: 's', postal_code: '1', country_code: 'NO' },
      },
    });
    expect(address.statusCode).toBe(422);
    expect(address.json()).toEqual({ errors: { address_one: [NOT_UNICODE] } });

    const collab = await server.post(`/organizations/${world.org}/collabs.json`, {
      token: world.owner.token,
      body: { collab: { name: '\udc00 trailing half' } },
    });
    expect(collab.statusCode).toBe(422);
    expect(collab.json()).toEqual({ errors: { name: [NOT_UNICODE] } });

    const user = await server.post('/test_helpers/users.json', {
      headers: { authorization: `Bearer ${TEST_HELPERS_KEY}` },
      body: { user: { name: 'x\ud83d', email: 'surrogate@example.com' } },
    });
    expect(user.statusCode).toBe(422);
    expect(user.json()).toEqual({ errors: { user: [NOT_UNICODE] } }); // this helper's body is flat
    expect(await digest()).toEqual(before);
  });

  it('in a JSON object stored as jsonb: 422, not the 500 of PostgreSQL refusing it', async () => {
    const before = await digest();
    for (const params of [{ a: '\ud800' }, { 'k\udfff': 1 }]) {
      const res = await server.post(`/test_helpers/users/${world.member.user.id}/notifications.json`, {
        headers: { authorization: `Bearer ${TEST_HELPERS_KEY}` },
        body: { notification: { type: 'T', record_type: 'R', record_id: '1', params } },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({ errors: { params: [NOT_UNICODE] } });
    }
    expect(await digest()).toEqual(before);
  });

  it('a surrogate pair (an emoji) is Unicode: stored and answered as sent', async () => {
    const res = await server.post(`/organizations/${world.org}/collabs.json`, {
      token: world.owner.token,
      body: { collab: { name: 'Launch \ud83d\ude80' } },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().name).toBe('Launch 🚀');
    const shown = await server.get(`/organizations/${world.org}/collabs/${res.json().id}.json`, {
      token: world.owner.token,
    });
    expect(shown.json().name).toBe('Launch 🚀');
  });
});
