import { describe, expect, it } from 'vitest';
import { helperAuth } from './fixtures/organization.js';
import { useTestServer } from './harness.js';

// A scripted random source: the chaos check draws once per API request.
const draws: number[] = [];
const server = useTestServer({ chaos503Rate: 0.3 }, { random: () => draws.shift() ?? 0.99 });

describe('MARKETPLACE_CHAOS_503_RATE', () => {
  it('answers the drawn share of API requests with a transient 503 before doing any work', async () => {
    const { token } = await server.createUser();
    draws.push(0.1, 0.5, 0.29, 0.3);
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      const res = await server.post('/me/access_tokens.json', {
        token,
        body: { access_token: { description: `t${i}`, permission: 'read' } },
      });
      statuses.push(res.statusCode);
      if (res.statusCode === 503) {
        expect(res.headers['retry-after']).toBe('1');
        expect(res.json()).toEqual({ error: 'Service temporarily unavailable' });
      }
    }
    expect(statuses).toEqual([503, 201, 503, 201]);
    // Only the two requests that got through created a token (plus the user's own).
    expect(await server.sql('select id from access_tokens')).toHaveLength(3);
  });

  it("leaves the test helpers alone: a test suite's set-up is not the client under test (the kit's createUser and reset failed)", async () => {
    draws.push(0, 0, 0);
    const created = await server.post('/test_helpers/users.json', {
      ...helperAuth,
      body: { user: { name: 'Set-up', email: 'setup@example.com' } },
    });
    expect(created.statusCode).toBe(201);
    expect((await server.post('/test_helpers/reset.json', helperAuth)).statusCode).toBe(204);
    // The API itself still draws: the next request gets its 503.
    const { token } = await server.createUser();
    expect((await server.get('/organizations.json', { token })).statusCode).toBe(503);
    draws.length = 0;
  });

  it('leaves the health check and unknown routes alone', async () => {
    draws.push(0, 0);
    expect((await server.get('/health')).statusCode).toBe(200);
    expect((await server.get('/nope.json')).statusCode).toBe(404);
  });
});
