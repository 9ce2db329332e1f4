import { describe, expect, it } from 'vitest';
import { useTestServer } from './harness.js';

const server = useTestServer();

describe('database unreachable', () => {
  it('answers 503 with Retry-After: 1, never a 500 or a hang', async () => {
    const { token } = await server.createUser();
    expect((await server.get('/me/access_tokens.json', { token })).statusCode).toBe(200);
    await server.stopDatabase();
    for (const res of [
      await server.get('/me/access_tokens.json', { token }),
      await server.post('/me/access_tokens.json', {
        token,
        body: { access_token: { description: 'x', permission: 'read' } },
      }),
      await server.get('/health'),
    ]) {
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
    }
    const res = await server.get('/me/access_tokens.json', { token });
    expect(res.json()).toEqual({ error: 'Service temporarily unavailable' });
  });
});
