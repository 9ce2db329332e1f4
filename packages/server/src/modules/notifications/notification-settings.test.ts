import { describe, expect, it } from 'vitest';
import { TEST_HELPERS_KEY, useTestServer } from '../../../test/harness.js';

const server = useTestServer();

const subscribe = (userId: string, key: string | null = TEST_HELPERS_KEY) =>
  server.post(`/test_helpers/users/${userId}/push_subscriptions.json`, { token: key });

const settings = (token: string, headers?: Record<string, string>) =>
  server.get('/me/notification_settings.json', { token, ...(headers && { headers }) });

const update = (token: string, body: unknown) =>
  server.patch('/me/notification_settings.json', { token, body });

const storedFlag = async (userId: string) =>
  (
    await server.sql<{ enabled: boolean }>(
      'select push_notifications_enabled as enabled from users where id = ?',
      [userId],
    )
  )[0]?.enabled;

const countSubscriptions = async () =>
  (await server.sql<{ n: number }>('select count(*)::int as n from push_subscriptions'))[0]?.n;

describe('GET /me/notification_settings.json', () => {
  it('shows push enabled by default and no subscriptions', async () => {
    const { token } = await server.createUser({ permission: 'read' });
    const res = await settings(token);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ push_notifications_enabled: true, push_subscription_count: 0 });
  });

  it("counts only the caller's push subscriptions", async () => {
    const alice = await server.createUser();
    const bob = await server.createUser();
    await subscribe(alice.user.id);
    await subscribe(alice.user.id);
    await subscribe(bob.user.id);
    expect((await settings(alice.token)).json()).toEqual({
      push_notifications_enabled: true,
      push_subscription_count: 2,
    });
  });

  it('sends an ETag, answers 304 to it, and a change gives a new tag', async () => {
    const { token, user } = await server.createUser();
    const first = await settings(token);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\/".+"$/);
    const cached = await settings(token, { 'if-none-match': etag });
    expect(cached.statusCode).toBe(304);
    expect(cached.body).toBe('');
    expect(cached.headers.etag).toBe(etag);

    await update(token, { push_notifications_enabled: false });
    const changed = await settings(token, { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);

    await subscribe(user.id);
    const subscribed = await settings(token, { 'if-none-match': changed.headers.etag as string });
    expect(subscribed.statusCode).toBe(200);
    expect(subscribed.headers.etag).not.toBe(changed.headers.etag);
  });

  it('needs a token', async () => {
    const res = await server.get('/me/notification_settings.json');
    expect(res.statusCode).toBe(401);
    expect(res.body).toBe('HTTP Token: Access denied.');
  });
});

describe('PATCH /me/notification_settings.json', () => {
  it('turns push off and on; subscriptions stay registered', async () => {
    const { token, user } = await server.createUser();
    await subscribe(user.id);
    await subscribe(user.id);

    const off = await update(token, { push_notifications_enabled: false });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toEqual({ push_notifications_enabled: false, push_subscription_count: 2 });
    expect(await storedFlag(user.id)).toBe(false);
    expect(await countSubscriptions()).toBe(2);
    expect((await settings(token)).json()).toEqual(off.json());

    const on = await update(token, { push_notifications_enabled: true, unknown: 1 });
    expect(on.json()).toEqual({ push_notifications_enabled: true, push_subscription_count: 2 });
    expect(await storedFlag(user.id)).toBe(true);
  });

  it("changes only the caller's setting", async () => {
    const alice = await server.createUser();
    const bob = await server.createUser();
    await update(alice.token, { push_notifications_enabled: false });
    expect(await storedFlag(bob.user.id)).toBe(true);
  });

  it.each([
    [
      'a string',
      { push_notifications_enabled: 'false' },
      { push_notifications_enabled: ['must be true or false'] },
    ],
    [
      'a number',
      { push_notifications_enabled: 0 },
      { push_notifications_enabled: ['must be true or false'] },
    ],
    ['null', { push_notifications_enabled: null }, { push_notifications_enabled: ["can't be blank"] }],
    ['nothing', {}, { push_notifications_enabled: ["can't be blank"] }],
    [
      'a wrapped body',
      { notification_settings: { push_notifications_enabled: false } },
      { push_notifications_enabled: ["can't be blank"] },
    ],
  ])('refuses %s with 422 and changes nothing', async (_label, body, errors) => {
    const { token, user } = await server.createUser();
    const res = await update(token, body);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors });
    expect(await storedFlag(user.id)).toBe(true);
  });

  it('refuses no body at all as it refuses {}: "can\'t be blank", not a parser message (found by review)', async () => {
    const { token, user } = await server.createUser();
    const res = await server.patch('/me/notification_settings.json', { token });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { push_notifications_enabled: ["can't be blank"] } });
    expect(await storedFlag(user.id)).toBe(true);
  });

  it('answers 400 to invalid JSON', async () => {
    const { token, user } = await server.createUser();
    const res = await update(token, '{"push_notifications_enabled": fals');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: expect.any(String) });
    expect(await storedFlag(user.id)).toBe(true);
  });

  it('refuses a read token with 401 and changes nothing', async () => {
    const { token, user } = await server.createUser({ permission: 'read' });
    const res = await update(token, { push_notifications_enabled: false });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Token realm="Application"');
    expect(res.body).toBe('HTTP Token: Access denied.');
    expect(await storedFlag(user.id)).toBe(true);
  });
});

describe('POST /test_helpers/users/:user_id/push_subscriptions.json', () => {
  it('registers a device (201 {id})', async () => {
    const { user } = await server.createUser();
    const res = await subscribe(user.id);
    expect(res.statusCode).toBe(201);
    const { id } = res.json();
    expect(res.json()).toEqual({ id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/) });
    expect(await server.sql('select id, user_id from push_subscriptions')).toEqual([
      { id, user_id: user.id },
    ]);
  });

  it('answers 404 for an unknown user', async () => {
    const res = await subscribe('unknown-user');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Not found' });
    expect(await countSubscriptions()).toBe(0);
  });

  it('answers 401 to a wrong or missing key', async () => {
    const { user, token } = await server.createUser();
    for (const key of ['wrong-key-wrong-key-wrong-key', token, null]) {
      const res = await subscribe(user.id, key);
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Token realm="Application"');
      expect(res.body).toBe('HTTP Token: Access denied.');
    }
    expect(await countSubscriptions()).toBe(0);
  });
});
