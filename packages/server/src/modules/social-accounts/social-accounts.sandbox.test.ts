import { describe, expect, it } from 'vitest';
import { NOT_SYNCED } from '../../../test/fixtures/social-accounts.js';
import { TEST_HELPERS_KEY, useTestServer } from '../../../test/harness.js';

const server = useTestServer();

async function newAccount() {
  const { token } = await server.createUser();
  const res = await server.post('/me/social_accounts.json', {
    token,
    body: { social_account: { platform_id: 'youtube', account_url: 'https://youtube.com/@synced' } },
  });
  expect(res.statusCode).toBe(201);
  return { token, account: res.json() as { id: string; created_at: string; updated_at: string } };
}

const sync = (id: string, body: unknown, key: string | null = TEST_HELPERS_KEY) =>
  server.post(`/test_helpers/social_accounts/${id}/sync.json`, { token: key, body });

const storedStats = async (id: string) =>
  (
    await server.sql(
      `select status, subscriber_count::text, view_count::text, video_count::text, likes_count::text,
              engagement_rate::text, last_synced_at is not null as synced
       from social_accounts where id = ?`,
      [id],
    )
  )[0];

describe('POST /test_helpers/social_accounts/:id/sync.json', () => {
  it('records a snapshot: stats, status and last_synced_at, shown by the public API', async () => {
    const { token, account } = await newAccount();
    const res = await sync(account.id, {
      sync: {
        status: 'verified',
        subscriber_count: 1200,
        view_count: 9_000_000_000,
        video_count: 42,
        likes_count: 0,
        engagement_rate: 4.25,
      },
    });
    expect(res.statusCode).toBe(200);
    const synced = res.json();
    expect(synced).toEqual({
      ...account,
      status: 'verified',
      subscriber_count: 1200,
      view_count: 9_000_000_000,
      video_count: 42,
      likes_count: 0,
      engagement_rate: '4.25',
      last_synced_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: expect.any(String),
    });
    expect(Date.parse(synced.updated_at)).toBeGreaterThanOrEqual(Date.parse(account.updated_at));
    expect(await storedStats(account.id)).toEqual({
      status: 'verified',
      subscriber_count: '1200',
      view_count: '9000000000',
      video_count: '42',
      likes_count: '0',
      engagement_rate: '4.2500',
      synced: true,
    });
    const shown = await server.get(`/me/social_accounts/${account.id}.json`, { token });
    expect(shown.json()).toEqual(synced);
  });

  it('keeps fields left out, clears fields sent as null, takes a decimal string', async () => {
    const { account } = await newAccount();
    await sync(account.id, {
      sync: { status: 'verified', subscriber_count: 10, view_count: 20, engagement_rate: 1 },
    });
    const res = await sync(account.id, { sync: { view_count: null, engagement_rate: '0.5' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'verified',
      subscriber_count: 10,
      view_count: null,
      engagement_rate: '0.5',
    });
    const status = await sync(account.id, { sync: { status: 'failed' } });
    expect(status.json()).toMatchObject({ status: 'failed', subscriber_count: 10, engagement_rate: '0.5' });
    // Numbers JSON writes in exponent form are stored too (rounded to the column's 4 decimals).
    const tiny = await sync(account.id, { sync: { engagement_rate: 1e-7 } });
    expect(tiny.json()).toMatchObject({ engagement_rate: '0' });
  });

  it('answers 404 for an unknown social account', async () => {
    const res = await sync('unknown', { sync: { status: 'verified' } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Not found' });
  });

  it.each([
    ['a wrong key', 'wrong-key-wrong-key-wrong-key'],
    ['no key', null],
  ])('answers 401 with %s and changes nothing', async (_label, key) => {
    const { account } = await newAccount();
    const res = await sync(account.id, { sync: { status: 'verified' } }, key);
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Token realm="Application"');
    expect(res.body).toBe('HTTP Token: Access denied.');
    expect(await storedStats(account.id)).toMatchObject({ status: 'pending', synced: false });
  });

  it("refuses a user's access token", async () => {
    const { token, account } = await newAccount();
    const res = await sync(account.id, { sync: { status: 'verified' } }, token);
    expect(res.statusCode).toBe(401);
  });

  it.each([
    ['a missing wrapper', {}, { sync: ['is missing'] }],
    [
      'an unknown status',
      { sync: { status: 'banned' } },
      { status: ['must be one of pending, verified, failed'] },
    ],
    [
      'a negative count',
      { sync: { subscriber_count: -1 } },
      { subscriber_count: ['must be greater than or equal to 0'] },
    ],
    ['a fractional count', { sync: { video_count: 1.5 } }, { video_count: ['must be a whole number'] }],
    [
      'a non-numeric rate',
      { sync: { engagement_rate: 'high' } },
      { engagement_rate: ['must be a number of at least 0, or one written as a string ("4.25")'] },
    ],
    [
      'a rate too large for the column',
      { sync: { engagement_rate: '123456789' } },
      { engagement_rate: ['must be less than or equal to 99999999.9999'] },
    ],
  ])('refuses %s with 422 and changes nothing', async (_label, body, errors) => {
    const { account } = await newAccount();
    const res = await sync(account.id, body);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors });
    expect(await storedStats(account.id)).toEqual({ ...NOT_SYNCED, synced: false });
  });
});
