import { describe, expect, it } from 'vitest';
import { TEST_HELPERS_KEY, useTestServer } from '../../../test/harness.js';

const server = useTestServer();

const createUser = (body: unknown, key: string | null = TEST_HELPERS_KEY) =>
  server.post('/test_helpers/users.json', { token: key, body });

const countUsers = async () =>
  (await server.sql<{ n: number }>('select count(*)::int as n from users'))[0]?.n;

describe('POST /test_helpers/users.json', () => {
  it('creates a user with a write token by default (201)', async () => {
    const res = await createUser({ user: { name: 'Ann', email: 'Ann@Example.COM' } });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      user: { id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/), name: 'Ann', email: 'ann@example.com' },
      access_token: {
        id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
        description: 'Default token',
        permission: 'write',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        last_used_at: null,
        token: expect.stringMatching(/^mkt_/),
      },
    });
    expect(await server.sql('select id, name, email, push_notifications_enabled from users')).toEqual([
      { ...body.user, push_notifications_enabled: true },
    ]);
    // The token works, for writes too.
    const write = await server.patch('/me/notification_settings.json', {
      token: body.access_token.token,
      body: { push_notifications_enabled: false },
    });
    expect(write.statusCode).toBe(200);
  });

  it('gives the token the description and permission asked for', async () => {
    const res = await createUser({
      user: { name: 'Reader', email: 'reader@example.com' },
      access_token: { description: 'CI', permission: 'read' },
    });
    expect(res.statusCode).toBe(201);
    const { access_token } = res.json();
    expect(access_token).toMatchObject({ description: 'CI', permission: 'read' });
    expect((await server.get('/me/access_tokens.json', { token: access_token.token })).statusCode).toBe(200);
    const write = await server.post('/me/access_tokens.json', {
      token: access_token.token,
      body: { access_token: { description: 'x', permission: 'write' } },
    });
    expect(write.statusCode).toBe(401);
  });

  it('refuses a taken e-mail address, whatever its case, with 422', async () => {
    await createUser({ user: { name: 'Ann', email: 'ann@example.com' } });
    for (const email of ['ann@example.com', 'ANN@example.com']) {
      const res = await createUser({ user: { name: 'Other', email } });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({ errors: { email: ['has already been taken'] } });
    }
    expect(await countUsers()).toBe(1);
    expect(await server.sql('select count(*)::int as n from access_tokens')).toEqual([{ n: 1 }]);
  });

  it('lets one of 20 concurrent sign-ups with the same address win', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        createUser({ user: { name: `U${i}`, email: 'race@example.com' } }),
      ),
    );
    expect(responses.map((r) => r.statusCode).sort()).toEqual([201, ...Array(19).fill(422)]);
    expect(await countUsers()).toBe(1);
  });

  it.each([
    [
      'a bad e-mail and a blank name',
      { user: { name: ' ', email: 'nope' } },
      // A flat body: issues are named by their top-level key.
      { user: ["can't be blank", 'is not an e-mail address'] },
    ],
    [
      'an unknown permission',
      { user: { name: 'A', email: 'a@example.com' }, access_token: { permission: 'admin' } },
      { access_token: ['must be one of read, write'] },
    ],
    ['no user', {}, { user: ['is missing'] }],
  ])('refuses %s with 422 and creates nothing', async (_label, body, errors) => {
    const res = await createUser(body);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors });
    expect(await countUsers()).toBe(0);
  });

  it('answers 401 to a wrong, missing or user key', async () => {
    const { token } = await server.createUser();
    for (const key of ['wrong-key-wrong-key-wrong-key', `${TEST_HELPERS_KEY}x`, token, null]) {
      const res = await createUser({ user: { name: 'A', email: 'a@example.com' } }, key);
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Token realm="Application"');
      expect(res.body).toBe('HTTP Token: Access denied.');
    }
    expect(await countUsers()).toBe(1);
  });
});
