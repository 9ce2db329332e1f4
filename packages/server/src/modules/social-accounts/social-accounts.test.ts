import { describe, expect, it } from 'vitest';
import { NOT_SYNCED } from '../../../test/fixtures/social-accounts.js';
import { useTestServer } from '../../../test/harness.js';

const server = useTestServer();

const UNAUTHORIZED = 'HTTP Token: Access denied.';

const create = (token: string, account: Record<string, unknown>) =>
  server.post('/me/social_accounts.json', { token, body: { social_account: account } });

const countAccounts = async () =>
  (await server.sql<{ n: number }>('select count(*)::int as n from social_accounts'))[0]?.n;

async function createAccount(token: string, account_url: string, platform_id = 'youtube') {
  const res = await create(token, { platform_id, account_url });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string; url: string; created_at: string };
}

describe('POST /me/social_accounts.json', () => {
  it('connects an account by URL: pending, null stats, normalised URL and uid', async () => {
    const { token, user } = await server.createUser();
    const res = await create(token, {
      platform_id: 'youtube',
      account_url: 'https://WWW.YouTube.com/@CreatorOne/',
      ignored: 'unknown fields are dropped',
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
      platform_id: 'youtube',
      account_url: 'https://youtube.com/@creatorone',
      uid: '@CreatorOne',
      ...NOT_SYNCED,
      last_synced_at: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: body.created_at,
      url: `http://marketplace.test/me/social_accounts/${body.id}.json`,
    });
    expect(await server.sql('select user_id, account_url, uid, status from social_accounts')).toEqual([
      {
        user_id: user.id,
        account_url: 'https://youtube.com/@creatorone',
        uid: '@CreatorOne',
        status: 'pending',
      },
    ]);
  });

  it.each([
    [
      'youtube',
      'https://www.youtube.com/channel/UC1234567890',
      'https://youtube.com/channel/UC1234567890',
      'UC1234567890',
    ],
    ['youtube', 'https://m.youtube.com/c/SomeName?si=abc#top', 'https://youtube.com/c/somename', 'SomeName'],
    ['x', 'https://twitter.com/someone', 'https://x.com/someone', 'someone'],
    ['x', 'https://X.com/some_one/', 'https://x.com/some_one', 'some_one'],
    ['twitch', 'https://www.twitch.tv/streamer', 'https://twitch.tv/streamer', 'streamer'],
  ])('accepts %s URL %s', async (platform_id, account_url, normalised, uid) => {
    const { token } = await server.createUser();
    const res = await create(token, { platform_id, account_url });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ platform_id, account_url: normalised, uid });
  });

  it.each([
    ['tiktok', 'https://www.tiktok.com/@someone', 'platform_id'],
    ['instagram', 'https://www.instagram.com/someone', 'platform_id'],
  ])(
    'refuses the OAuth-only platform %s with 422 on platform_id',
    async (platform_id, account_url, field) => {
      const { token } = await server.createUser();
      const res = await create(token, { platform_id, account_url });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({
        errors: { [field]: ['connects through the browser OAuth flow and cannot be added through the API'] },
      });
      expect(await countAccounts()).toBe(0);
    },
  );

  it.each([
    [
      'unknown platform',
      { platform_id: 'myspace', account_url: 'https://myspace.com/x' },
      { platform_id: ['is not a known platform'] },
    ],
    [
      'unknown platform and a URL that is no URL (both at once, found by review)',
      { platform_id: 'myspace', account_url: 'not a url' },
      { platform_id: ['is not a known platform'], account_url: ['is not a valid URL'] },
    ],
    [
      'OAuth-only platform and an http URL (both at once)',
      { platform_id: 'tiktok', account_url: 'http://www.tiktok.com/@someone' },
      {
        platform_id: ['connects through the browser OAuth flow and cannot be added through the API'],
        account_url: ['must be an https URL'],
      },
    ],
    [
      'http URL',
      { platform_id: 'youtube', account_url: 'http://youtube.com/@a' },
      { account_url: ['must be an https URL'] },
    ],
    [
      'wrong host',
      { platform_id: 'youtube', account_url: 'https://vimeo.com/@a' },
      { account_url: ['must be on youtube.com'] },
    ],
    [
      'host of another platform',
      { platform_id: 'x', account_url: 'https://youtube.com/@a' },
      { account_url: ['must be on x.com or twitter.com'] },
    ],
    [
      'not a URL',
      { platform_id: 'youtube', account_url: 'not a url' },
      { account_url: ['is not a valid URL'] },
    ],
    [
      'no account in the path',
      { platform_id: 'youtube', account_url: 'https://youtube.com/' },
      { account_url: ['does not name an account on this platform'] },
    ],
    [
      'credentials',
      { platform_id: 'twitch', account_url: 'https://user:pw@twitch.tv/a' },
      { account_url: ['must not contain credentials or a port'] },
    ],
    [
      'huge URL',
      { platform_id: 'youtube', account_url: `https://youtube.com/@${'a'.repeat(3000)}` },
      { account_url: ['is too long (maximum is 2048 characters)'] },
    ],
    [
      'wrong types',
      { platform_id: 7, account_url: ['x'] },
      { platform_id: ['must be a string'], account_url: ['must be a string'] },
    ],
    ['empty payload', {}, { platform_id: ["can't be blank"], account_url: ["can't be blank"] }],
    [
      'nulls',
      { platform_id: null, account_url: null },
      { platform_id: ["can't be blank"], account_url: ["can't be blank"] },
    ],
  ])('refuses a payload with %s: 422, nothing stored', async (_label, payload, errors) => {
    const { token } = await server.createUser();
    const res = await create(token, payload);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors });
    expect(await countAccounts()).toBe(0);
  });

  it('names a missing or malformed wrapper, and answers 400 to invalid JSON', async () => {
    const { token } = await server.createUser();
    const missing = await server.post('/me/social_accounts.json', { token, body: { platform_id: 'x' } });
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toEqual({ errors: { social_account: ['is missing'] } });
    const notObject = await server.post('/me/social_accounts.json', { token, body: { social_account: 'x' } });
    expect(notObject.statusCode).toBe(422);
    expect(notObject.json()).toEqual({ errors: { social_account: ['must be an object'] } });
    const invalid = await server.post('/me/social_accounts.json', { token, body: '{"social_account": ' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toEqual({ error: expect.any(String) });
    expect(await countAccounts()).toBe(0);
  });

  it('rejects a duplicate URL, also spelled differently and for another user', async () => {
    const alice = await server.createUser();
    const bob = await server.createUser();
    await createAccount(alice.token, 'https://youtube.com/@dup');
    for (const [token, url] of [
      [alice.token, 'https://youtube.com/@dup'],
      [bob.token, 'https://WWW.YOUTUBE.COM/@dup/'],
      [bob.token, 'https://m.youtube.com/@dup?feature=share'],
    ] as const) {
      const res = await create(token, { platform_id: 'youtube', account_url: url });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({ errors: { account_url: ['has already been taken'] } });
    }
    expect(await countAccounts()).toBe(1);
  });

  it('rejects every other spelling of a taken handle: percent-encoded, other case, alias host', async () => {
    const alice = await server.createUser();
    const bob = await server.createUser();
    await createAccount(alice.token, 'https://x.com/famouscreator', 'x');
    for (const [token, url] of [
      [bob.token, 'https://x.com/f%61mouscreator'],
      [bob.token, 'https://x.com/FamousCreator'],
      [bob.token, 'https://twitter.com/famouscreator'],
      [alice.token, 'https://mobile.twitter.com/FAMOUS%43REATOR/'],
    ] as const) {
      const res = await create(token, { platform_id: 'x', account_url: url });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({ errors: { account_url: ['has already been taken'] } });
    }
    expect(await server.sql('select account_url from social_accounts')).toEqual([
      { account_url: 'https://x.com/famouscreator' },
    ]);
  });

  it('lets exactly one of 20 concurrent creates of the same account win', async () => {
    const users = await Promise.all(Array.from({ length: 4 }, () => server.createUser()));
    const spellings = [
      'https://twitch.tv/racer',
      'https://www.twitch.tv/racer',
      'https://twitch.tv/racer/',
      'https://TWITCH.TV/racer',
      'https://WWW.Twitch.Tv/racer/',
      'https://twitch.tv/Racer',
      'https://twitch.tv/r%61cer',
      'https://m.twitch.tv/RACER/',
    ];
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        create((users[i % users.length] as { token: string }).token, {
          platform_id: 'twitch',
          account_url: spellings[i % spellings.length],
        }),
      ),
    );
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([201, ...Array(19).fill(422)]);
    for (const res of responses.filter((r) => r.statusCode === 422))
      expect(res.json()).toEqual({ errors: { account_url: ['has already been taken'] } });
    expect(await server.sql('select account_url from social_accounts')).toEqual([
      { account_url: 'https://twitch.tv/racer' },
    ]);
  });

  it('refuses a read token with 401 and stores nothing', async () => {
    const { token } = await server.createUser({ permission: 'read' });
    const res = await create(token, { platform_id: 'youtube', account_url: 'https://youtube.com/@r' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Token realm="Application"');
    expect(res.body).toBe(UNAUTHORIZED);
    expect(await countAccounts()).toBe(0);
  });
});

describe('GET /me/social_accounts.json', () => {
  it("lists only the caller's accounts, oldest first, paginated", async () => {
    const alice = await server.createUser();
    const bob = await server.createUser();
    const ids: string[] = [];
    for (let i = 0; i < 22; i++)
      ids.push((await createAccount(alice.token, `https://x.com/alice${i}`, 'x')).id);
    await createAccount(bob.token, 'https://x.com/bob', 'x');
    // Same created_at for two accounts: id breaks the tie.
    await server.sql('update social_accounts set created_at = ? where id in (?, ?)', [
      '2020-01-01T00:00:00.000Z',
      ids[5],
      ids[9],
    ]);
    const tied = [ids[5], ids[9]].sort() as string[];
    const expected = [...tied, ...ids.filter((id) => !tied.includes(id))];

    const first = await server.get('/me/social_accounts.json', { token: alice.token });
    expect(first.statusCode).toBe(200);
    expect(first.headers).toMatchObject({
      'current-page': '1',
      'page-items': '20',
      'total-count': '22',
      'total-pages': '2',
    });
    expect(first.headers.etag).toBeUndefined();
    const second = await server.get('/me/social_accounts.json?page=2', { token: alice.token });
    const listed = [...first.json(), ...second.json()].map((a: { id: string }) => a.id);
    expect(listed).toEqual(expected);
    expect(second.json()[0]).toMatchObject({ platform_id: 'x', status: 'pending', url: expect.any(String) });
  });

  it('answers an empty page and a bad page number as decided', async () => {
    const { token } = await server.createUser();
    const empty = await server.get('/me/social_accounts.json', { token });
    expect(empty.json()).toEqual([]);
    expect(empty.headers['total-pages']).toBe('1');
    const bad = await server.get('/me/social_accounts.json?page=0', { token });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual({ errors: { page: ['must be a positive integer'] } });
  });

  it('needs a token', async () => {
    const res = await server.get('/me/social_accounts.json');
    expect(res.statusCode).toBe(401);
    expect(res.body).toBe(UNAUTHORIZED);
  });
});

describe('GET /me/social_accounts/:id.json', () => {
  it('shows an account with an ETag and answers 304 to If-None-Match', async () => {
    const { token } = await server.createUser();
    const created = await createAccount(token, 'https://youtube.com/@show');
    const res = await server.get(`/me/social_accounts/${created.id}.json`, { token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(created);
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^W\/".+"$/);
    const cached = await server.get(`/me/social_accounts/${created.id}.json`, {
      token,
      headers: { 'if-none-match': etag },
    });
    expect(cached.statusCode).toBe(304);
    expect(cached.body).toBe('');
  });

  it("answers 404 for another user's account and for an unknown id", async () => {
    const alice = await server.createUser();
    const bob = await server.createUser();
    const bobs = await createAccount(bob.token, 'https://youtube.com/@bob');
    for (const id of [bobs.id, 'unknown', 'x'.repeat(90)]) {
      const res = await server.get(`/me/social_accounts/${id}.json`, { token: alice.token });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Not found' });
    }
  });
});

describe('DELETE /me/social_accounts/:id.json', () => {
  it('deletes the account (204), then 404; the URL can be connected again', async () => {
    const { token } = await server.createUser();
    const created = await createAccount(token, 'https://youtube.com/@gone');
    const res = await server.delete(`/me/social_accounts/${created.id}.json`, { token });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await countAccounts()).toBe(0);
    const again = await server.delete(`/me/social_accounts/${created.id}.json`, { token });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ error: 'Not found' });
    await createAccount(token, 'https://youtube.com/@gone');
  });

  it("answers 404 for another user's account and leaves it", async () => {
    const alice = await server.createUser();
    const bob = await server.createUser();
    const bobs = await createAccount(bob.token, 'https://youtube.com/@bob');
    const res = await server.delete(`/me/social_accounts/${bobs.id}.json`, { token: alice.token });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Not found' });
    expect(await countAccounts()).toBe(1);
  });

  it('refuses a read token with 401 and keeps the account', async () => {
    const writer = await server.createUser();
    const created = await createAccount(writer.token, 'https://youtube.com/@keep');
    const reader = await server.post('/me/access_tokens.json', {
      token: writer.token,
      body: { access_token: { description: 'r', permission: 'read' } },
    });
    const res = await server.delete(`/me/social_accounts/${created.id}.json`, { token: reader.json().token });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Token realm="Application"');
    expect(await countAccounts()).toBe(1);
  });
});
