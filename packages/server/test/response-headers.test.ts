/**
 * Headers every API answer carries against sniffing and caching: `X-Content-Type-Options:
 * nosniff` everywhere; `Cache-Control: no-store` where a token or personal data is in the answer,
 * `private` on the other authenticated answers (shows keep their ETag revalidation).
 */
import { describe, expect, it } from 'vitest';
import { TEST_HELPERS_KEY, useTestServer } from './harness.js';

const server = useTestServer();

describe('X-Content-Type-Options', () => {
  it('is nosniff on successes, errors and unknown routes', async () => {
    const { token } = await server.createUser();
    const answers = [
      await server.get('/organizations.json', { token }),
      await server.get('/organizations.json'),
      await server.get('/organizations', { token }),
      await server.get('/nowhere.json'),
      await server.get('/health'),
      await server.post('/organizations.json', { token, body: { organization: {} } }),
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([200, 401, 406, 404, 200, 422]);
    for (const res of answers) expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('Cache-Control', () => {
  it('no-store on a token creation, the test-helper user creation and /me answers', async () => {
    const { token } = await server.createUser();
    const created = await server.post('/me/access_tokens.json', {
      token,
      body: { access_token: { description: 'ci', permission: 'read' } },
    });
    expect(created.statusCode).toBe(201);
    const helper = await server.post('/test_helpers/users.json', {
      token: TEST_HELPERS_KEY,
      body: { user: { name: 'Ann', email: 'ann@example.com' } },
    });
    expect(helper.statusCode).toBe(201);
    const me = [
      await server.get('/me/access_tokens.json', { token }),
      await server.get('/me/notification_settings.json', { token }),
      await server.get('/me/address.json', { token }),
    ];
    for (const res of [created, helper, ...me]) expect(res.headers['cache-control']).toBe('no-store');
  });

  it('private on other authenticated answers; the ETag still revalidates', async () => {
    const { token } = await server.createUser();
    const org = await server.post('/organizations.json', { token, body: { organization: { name: 'Acme' } } });
    expect(org.headers['cache-control']).toBe('private');
    const show = await server.get(`/organizations/${org.json().id}.json`, { token });
    expect(show.headers['cache-control']).toBe('private');
    const again = await server.get(`/organizations/${org.json().id}.json`, {
      token,
      headers: { 'if-none-match': show.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
    expect(again.headers['cache-control']).toBe('private');
    expect((await server.get('/organizations.json', { token })).headers['cache-control']).toBe('private');
  });
});
