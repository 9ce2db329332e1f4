import { describe, expect, it } from 'vitest';
import { TEST_HELPERS_KEY, useTestServer } from '../../../test/harness.js';

const server = useTestServer();

const JOIN_REQUEST = {
  type: 'Membership::JoinRequestReceivedNotifier',
  params: { user_name: 'Ann', organization_name: 'Acme' },
  record_type: 'Membership::JoinRequest',
  record_id: 'jr_1',
};

const createNotification = (userId: string, notification: unknown, key: string | null = TEST_HELPERS_KEY) =>
  server.post(`/test_helpers/users/${userId}/notifications.json`, { token: key, body: { notification } });

async function notification(userId: string, overrides: Record<string, unknown> = {}) {
  const res = await createNotification(userId, { ...JOIN_REQUEST, ...overrides });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string; type: string; created_at: string };
}

const countNotifications = async () =>
  (await server.sql<{ n: number }>('select count(*)::int as n from notifications'))[0]?.n;

describe('GET /me/notifications.json', () => {
  it("lists the caller's inbox newest first, id breaking ties", async () => {
    const alice = await server.createUser();
    const bob = await server.createUser();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await notification(alice.user.id, { record_id: `r${i}` })).id);
    await notification(bob.user.id);
    // Distinct times, oldest first as created, and two notifications sharing one time.
    const times = ['2024-01-01T00:00:00.000Z', '2024-01-02T00:00:00.000Z', '2024-01-03T00:00:00.000Z'];
    await server.sql('update notifications set created_at = ? where id = ?', [times[0], ids[0]]);
    await server.sql('update notifications set created_at = ? where id = ?', [times[1], ids[1]]);
    await server.sql('update notifications set created_at = ? where id in (?, ?)', [
      times[2],
      ids[2],
      ids[3],
    ]);
    const tied = [ids[2], ids[3]].sort().reverse();

    const res = await server.get('/me/notifications.json', { token: alice.token });
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({ 'total-count': '4', 'total-pages': '1', 'current-page': '1' });
    expect(res.headers.etag).toBeUndefined();
    const listed = res.json();
    expect(listed.map((n: { id: string }) => n.id)).toEqual([...tied, ids[1], ids[0]]);
    expect(listed[3]).toEqual({
      id: ids[0],
      ...JOIN_REQUEST,
      record_id: 'r0',
      seen_at: null,
      read_at: null,
      created_at: times[0],
    });
  });

  it('leaves out submission-message kinds, also from the page totals', async () => {
    const { token, user } = await server.createUser();
    for (let i = 0; i < 21; i++) await notification(user.id, { record_id: `kept${i}` });
    for (const type of [
      'Submission::MessageReceivedNotifier',
      'Submission::Message',
      'Submission::MessageRead',
    ])
      for (let i = 0; i < 3; i++) await notification(user.id, { type });
    await notification(user.id, { type: 'Submission::ApprovedNotifier', record_id: 'approved' });

    const first = await server.get('/me/notifications.json', { token });
    expect(first.headers).toMatchObject({ 'total-count': '22', 'total-pages': '2', 'page-items': '20' });
    const second = await server.get('/me/notifications.json?page=2', { token });
    expect(second.json()).toHaveLength(2);
    const types = [...first.json(), ...second.json()].map((n: { type: string }) => n.type);
    expect(types.filter((t) => t.startsWith('Submission::Message'))).toEqual([]);
    expect(types).toContain('Submission::ApprovedNotifier');
    expect(await countNotifications()).toBe(31);
  });

  it('marks nothing as seen or read', async () => {
    const { token, user } = await server.createUser();
    await notification(user.id);
    await notification(user.id);
    expect((await server.get('/me/notifications.json', { token })).statusCode).toBe(200);
    expect((await server.get('/me/notifications.json', { token })).statusCode).toBe(200);
    expect(await server.sql('select seen_at, read_at from notifications')).toEqual([
      { seen_at: null, read_at: null },
      { seen_at: null, read_at: null },
    ]);
  });

  it('shows stored seen_at and read_at as timestamps', async () => {
    const { token, user } = await server.createUser();
    await notification(user.id);
    await server.sql('update notifications set seen_at = ?, read_at = ?', [
      '2024-05-01T10:00:00.000Z',
      '2024-05-02T10:00:00.000Z',
    ]);
    const [listed] = (await server.get('/me/notifications.json', { token })).json();
    expect(listed).toMatchObject({
      seen_at: '2024-05-01T10:00:00.000Z',
      read_at: '2024-05-02T10:00:00.000Z',
    });
  });

  it('answers an empty inbox, a page past the end and a bad page', async () => {
    const { token, user } = await server.createUser();
    const empty = await server.get('/me/notifications.json', { token });
    expect(empty.json()).toEqual([]);
    expect(empty.headers).toMatchObject({ 'total-count': '0', 'total-pages': '1' });
    await notification(user.id);
    const past = await server.get('/me/notifications.json?page=3', { token });
    expect(past.statusCode).toBe(200);
    expect(past.json()).toEqual([]);
    expect(past.headers).toMatchObject({ 'current-page': '3', 'total-count': '1' });
    const bad = await server.get('/me/notifications.json?page=abc', { token });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual({ errors: { page: ['must be a positive integer'] } });
  });

  it('works with a read token and needs one', async () => {
    const { token } = await server.createUser({ permission: 'read' });
    expect((await server.get('/me/notifications.json', { token })).statusCode).toBe(200);
    const anonymous = await server.get('/me/notifications.json');
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Token realm="Application"');
  });
});

describe('POST /test_helpers/users/:user_id/notifications.json', () => {
  it('puts a notification in the inbox (201, the public shape)', async () => {
    const { token, user } = await server.createUser();
    const res = await createNotification(user.id, JOIN_REQUEST);
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
      ...JOIN_REQUEST,
      seen_at: null,
      read_at: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect((await server.get('/me/notifications.json', { token })).json()).toEqual([created]);
    expect(await server.sql('select recipient_id, type from notifications')).toEqual([
      { recipient_id: user.id, type: JOIN_REQUEST.type },
    ]);
  });

  it('defaults params to an empty object', async () => {
    const { user } = await server.createUser();
    const { params: _params, ...withoutParams } = JOIN_REQUEST;
    const res = await createNotification(user.id, withoutParams);
    expect(res.statusCode).toBe(201);
    expect(res.json().params).toEqual({});
  });

  it('answers 404 for an unknown user', async () => {
    const res = await createNotification('unknown-user', JOIN_REQUEST);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Not found' });
    expect(await countNotifications()).toBe(0);
  });

  it('answers 401 to a wrong key and stores nothing', async () => {
    const { user, token } = await server.createUser();
    for (const key of ['wrong-key-wrong-key-wrong-key', token, null]) {
      const res = await createNotification(user.id, JOIN_REQUEST, key);
      expect(res.statusCode).toBe(401);
      expect(res.body).toBe('HTTP Token: Access denied.');
    }
    expect(await countNotifications()).toBe(0);
  });

  it('refuses a bad payload with 422', async () => {
    const { user } = await server.createUser();
    const res = await createNotification(user.id, { type: '', params: 'x', record_type: 1 });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      errors: {
        type: ["can't be blank"],
        params: ['must be an object'],
        record_type: ['must be a string'],
        record_id: ["can't be blank"],
      },
    });
    const missing = await server.post(`/test_helpers/users/${user.id}/notifications.json`, {
      token: TEST_HELPERS_KEY,
      body: JOIN_REQUEST,
    });
    expect(missing.json()).toEqual({ errors: { notification: ['is missing'] } });
    expect(await countNotifications()).toBe(0);
  });
});
