import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../../test/harness.js';

const server = useTestServer();

const createToken = (token: string, access_token: Record<string, unknown>) =>
  server.post('/me/access_tokens.json', { token, body: { access_token } });

describe('POST /me/access_tokens.json', () => {
  it('creates a token, shows its value once and stores only its digest', async () => {
    const { token } = await server.createUser();
    const res = await createToken(token, { description: 'CI', permission: 'read' });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({ description: 'CI', permission: 'read', last_used_at: null });
    expect(created.token).toMatch(/^mkt_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}$/);
    const rows = await server.sql<{ digest: string }>('select digest from access_tokens where id = ?', [
      created.id,
    ]);
    expect(rows[0]?.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(await server.sql('select * from access_tokens'))).not.toContain(created.token);

    const list = await server.get('/me/access_tokens.json', { token });
    expect(list.json().find((t: { id: string }) => t.id === created.id)).not.toHaveProperty('token');
  });

  it('works with the new token, with the permission it was given', async () => {
    const { token } = await server.createUser();
    const created = (await createToken(token, { description: 'r', permission: 'read' })).json();
    expect((await server.get('/me/access_tokens.json', { token: created.token })).statusCode).toBe(200);
    const write = await createToken(created.token, { description: 'x', permission: 'write' });
    expect(write.statusCode).toBe(401);
  });

  it('refuses a bad payload with 422 and creates nothing', async () => {
    const { token } = await server.createUser();
    const res = await createToken(token, { description: '', permission: 'admin' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      errors: { description: ["can't be blank"], permission: ['must be one of read, write'] },
    });
    expect(await server.sql('select id from access_tokens')).toHaveLength(1);
  });

  it('names a missing wrapper', async () => {
    const { token } = await server.createUser();
    const res = await server.post('/me/access_tokens.json', { token, body: { description: 'x' } });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { access_token: ['is missing'] } });
  });
});

describe('DELETE /me/access_tokens/:id.json', () => {
  it('lets a token revoke itself: that request succeeds, the next is 401', async () => {
    const { token, tokenId } = await server.createUser();
    expect((await server.delete(`/me/access_tokens/${tokenId}.json`, { token })).statusCode).toBe(204);
    const after = await server.get('/me/access_tokens.json', { token });
    expect(after.statusCode).toBe(401);
    expect(await server.sql('select id from access_tokens where id = ?', [tokenId])).toEqual([]);
  });

  it("answers 404 for another user's token and leaves it alone", async () => {
    const alice = await server.createUser();
    const bob = await server.createUser();
    const res = await server.delete(`/me/access_tokens/${bob.tokenId}.json`, { token: alice.token });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Not found' });
    expect((await server.get('/me/access_tokens.json', { token: bob.token })).statusCode).toBe(200);
  });
});

describe('GET /me/access_tokens.json', () => {
  it('lists metadata newest first, with last_used_at set on first use', async () => {
    const { token, tokenId } = await server.createUser();
    const res = await server.get('/me/access_tokens.json', { token });
    expect(res.statusCode).toBe(200);
    expect(res.headers['total-count']).toBe('1');
    const [listed] = res.json();
    expect(Object.keys(listed).sort()).toEqual([
      'created_at',
      'description',
      'id',
      'last_used_at',
      'permission',
    ]);
    expect(listed.id).toBe(tokenId);
    expect(listed.last_used_at).toMatch(/Z$/);
  });
});
