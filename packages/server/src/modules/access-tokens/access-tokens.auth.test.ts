import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../../test/harness.js';
import { generateToken, isWellFormedToken } from './token.js';

const server = useTestServer();

/** The one 401 of decisions.md, whatever the reason. */
function expectAccessDenied(res: LightMyRequestResponse) {
  expect(res.statusCode).toBe(401);
  expect(res.headers['www-authenticate']).toBe('Token realm="Application"');
  expect(res.headers['content-type']).toMatch(/^text\/plain/);
  expect(res.body).toBe('HTTP Token: Access denied.');
}

/** `last_used_at` in epoch milliseconds (raw timestamps come back as strings on PostgreSQL). */
const lastUsedAt = async (tokenId: string) =>
  (
    await server.sql<{ ms: number | null }>(
      'select round(extract(epoch from last_used_at) * 1000)::float8 as ms from access_tokens where id = ?',
      [tokenId],
    )
  )[0]?.ms ?? null;

/** The database's clock, in epoch milliseconds, rounded as {@link lastUsedAt} is. */
const databaseNow = async () =>
  (await server.sql<{ ms: number }>('select round(extract(epoch from now()) * 1000)::float8 as ms'))[0]
    ?.ms as number;

/** Changes the character at `index` to another one of the same alphabet. */
const withCharChanged = (token: string, index: number) =>
  token.slice(0, index) + (token[index] === 'A' ? 'B' : 'A') + token.slice(index + 1);

describe('token format', () => {
  it('is mkt_ + at least 43 characters, with a checksum', async () => {
    const { token } = await server.createUser();
    expect(token.startsWith('mkt_')).toBe(true);
    expect(token.length - 'mkt_'.length).toBeGreaterThanOrEqual(43);
    expect(isWellFormedToken(token)).toBe(true);
    for (const index of [4, 20, 46, token.length - 1])
      expect(isWellFormedToken(withCharChanged(token, index))).toBe(false);
  });

  it('refuses a token with one character changed without asking the database', async () => {
    const { token } = await server.createUser();
    for (const index of [4, 30, token.length - 1]) {
      server.queries.length = 0;
      expectAccessDenied(
        await server.get('/me/access_tokens.json', { token: withCharChanged(token, index) }),
      );
      expect(server.queries).toEqual([]);
    }
  });

  it.each([
    ['a random string', 'abc'],
    ['the bare prefix', 'mkt_'],
    ['a short secret', `mkt_${'a'.repeat(42)}`],
    ['another prefix', (t: string) => `ghp_${t.slice(4)}`],
    ['a lowercased token', (t: string) => t.toLowerCase()],
    ['extra characters', (t: string) => `${t}x`],
  ])('refuses a malformed token (%s) without asking the database', async (_label, make) => {
    const { token } = await server.createUser();
    const bad = typeof make === 'string' ? make : make(token);
    server.queries.length = 0;
    expectAccessDenied(await server.get('/me/access_tokens.json', { token: bad }));
    expect(server.queries).toEqual([]);
  });

  it.each([
    ['no Authorization header', {}],
    ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['an empty bearer', { authorization: 'Bearer ' }],
    ['two tokens', { authorization: 'Bearer a b' }],
  ])('refuses %s', async (_label, headers) => {
    await server.createUser();
    server.queries.length = 0;
    expectAccessDenied(await server.get('/me/access_tokens.json', { headers }));
    expect(server.queries).toEqual([]);
  });

  it('refuses a well-formed token nobody was given', async () => {
    await server.createUser();
    expectAccessDenied(await server.get('/me/access_tokens.json', { token: generateToken() }));
  });

  it('refuses a revoked token', async () => {
    const { token } = await server.createUser();
    const other = await server.post('/me/access_tokens.json', {
      token,
      body: { access_token: { description: 'temp', permission: 'write' } },
    });
    const { id, token: revoked } = other.json();
    expect((await server.get('/me/access_tokens.json', { token: revoked })).statusCode).toBe(200);
    expect((await server.delete(`/me/access_tokens/${id}.json`, { token })).statusCode).toBe(204);
    expectAccessDenied(await server.get('/me/access_tokens.json', { token: revoked }));
    expectAccessDenied(await server.get('/me/address.json', { token: revoked }));
  });
});

describe('read tokens', () => {
  it('may GET and HEAD', async () => {
    const { token } = await server.createUser({ permission: 'read' });
    expect((await server.get('/me/access_tokens.json', { token })).statusCode).toBe(200);
    expect((await server.request('HEAD', '/me/access_tokens.json', { token })).statusCode).toBe(200);
  });

  it('get the 401 on POST, PATCH and DELETE, and change nothing', async () => {
    const { token, tokenId, user } = await server.createUser({ permission: 'read' });
    // Every column but last_used_at: the token was used, even if only to be refused.
    const tokens = () =>
      server.sql('select id, user_id, description, permission, digest, created_at from access_tokens');
    const before = await tokens();

    expectAccessDenied(
      await server.post('/me/access_tokens.json', {
        token,
        body: { access_token: { description: 'escalate', permission: 'write' } },
      }),
    );
    expectAccessDenied(
      await server.patch('/me/notification_settings.json', {
        token,
        body: { push_notifications_enabled: false },
      }),
    );
    expectAccessDenied(await server.delete(`/me/access_tokens/${tokenId}.json`, { token }));
    // The 401 comes before validation: a bad body does not turn it into a 422.
    expectAccessDenied(await server.post('/me/access_tokens.json', { token, body: { nothing: true } }));

    expect(await tokens()).toEqual(before);
    expect(await server.sql('select push_notifications_enabled from users where id = ?', [user.id])).toEqual([
      { push_notifications_enabled: true },
    ]);
  });
});

describe('last_used_at', () => {
  it('is null until the first use, then set; using one token leaves the others alone', async () => {
    const { token, tokenId } = await server.createUser();
    expect(await lastUsedAt(tokenId)).toBeNull();

    const created = await server.post('/me/access_tokens.json', {
      token,
      body: { access_token: { description: 'second', permission: 'read' } },
    });
    expect(created.json().last_used_at).toBeNull();
    const secondId = created.json().id;
    expect(await lastUsedAt(tokenId)).toEqual(expect.any(Number));
    expect(await lastUsedAt(secondId)).toBeNull();

    const list = await server.get('/me/access_tokens.json', { token });
    const byId = Object.fromEntries(list.json().map((t: { id: string }) => [t.id, t]));
    expect(byId[secondId].last_used_at).toBeNull();
    expect(Date.parse(byId[tokenId].last_used_at)).toBe(await lastUsedAt(tokenId));
  });

  it('is not touched again within a minute', async () => {
    const { token, tokenId } = await server.createUser();
    await server.sql("update access_tokens set last_used_at = now() - interval '30 seconds' where id = ?", [
      tokenId,
    ]);
    const before = await lastUsedAt(tokenId);
    server.queries.length = 0;
    expect((await server.get('/me/access_tokens.json', { token })).statusCode).toBe(200);
    expect(await lastUsedAt(tokenId)).toEqual(before);
    // The authentication statement says whether a touch is due; within the minute none is sent.
    expect(server.queries.filter((q) => /update\s+access_tokens/i.test(q))).toHaveLength(0);
  });

  it('is updated when the last use was more than a minute ago', async () => {
    const { token, tokenId } = await server.createUser();
    await server.sql("update access_tokens set last_used_at = now() - interval '2 minutes' where id = ?", [
      tokenId,
    ]);
    const before = (await lastUsedAt(tokenId)) as number;
    const requestSent = await databaseNow();
    expect((await server.get('/me/access_tokens.json', { token })).statusCode).toBe(200);
    const answered = await databaseNow();
    // Touched by that request: the database's clock read between its sending and its answer.
    const touched = (await lastUsedAt(tokenId)) as number;
    expect(touched).toBeGreaterThan(before);
    expect(touched).toBeGreaterThanOrEqual(requestSent);
    expect(touched).toBeLessThanOrEqual(answered);
  });
});
