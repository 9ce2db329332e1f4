import { describe, expect, it } from 'vitest';
import { useTestServer } from './harness.js';

const server = useTestServer();

describe('error bodies and check order', () => {
  it('answers an unknown route with 404 {"error": "Not found"}, before any token check', async () => {
    for (const url of ['/nope.json', '/me/nothing.json', '/organizations/x/unknown.json']) {
      const res = await server.get(url);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Not found' });
    }
    expect((await server.request('PUT', '/me/access_tokens.json')).statusCode).toBe(404);
  });

  it('answers an over-long id like any unknown id: 404', async () => {
    const { token } = await server.createUser();
    const res = await server.delete(`/me/access_tokens/${'x'.repeat(5_000)}.json`, { token });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Not found' });
  });

  it('answers a body that is not JSON with 400 {"error"} and creates nothing', async () => {
    const { token } = await server.createUser();
    const res = await server.post('/me/access_tokens.json', { token, body: '{"access_token": {' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'The request body is not valid JSON' });
    expect(await server.sql('select id from access_tokens')).toHaveLength(1);
  });

  it('checks the token before the body: no token and a bad body is 401', async () => {
    const res = await server.post('/me/access_tokens.json', { body: '{broken' });
    expect(res.statusCode).toBe(401);
  });

  it('ignores unknown fields of a payload', async () => {
    const { token } = await server.createUser();
    const res = await server.post('/me/access_tokens.json', {
      token,
      body: {
        access_token: { description: 'x', permission: 'read', token: 'mkt_mine', id: 'chosen' },
        extra: 1,
      },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().id).not.toBe('chosen');
    expect(res.json().token).not.toBe('mkt_mine');
  });

  it('answers a payload of the wrong type with 422 listing the wrapper', async () => {
    const { token } = await server.createUser();
    const res = await server.post('/me/access_tokens.json', { token, body: { access_token: 'read' } });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { access_token: ['must be an object'] } });
  });

  it('answers a huge string with 422, not 5xx', async () => {
    const { token } = await server.createUser();
    const res = await server.post('/me/access_tokens.json', {
      token,
      body: { access_token: { description: 'x'.repeat(500_000), permission: 'read' } },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { description: ['is too long (maximum is 200 characters)'] } });
  });

  it('answers a body over the size limit with 413', async () => {
    const { token } = await server.createUser();
    const res = await server.post('/me/access_tokens.json', {
      token,
      body: { access_token: { description: 'x'.repeat(2_000_000), permission: 'read' } },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: 'The request body is too large' });
  });
});
