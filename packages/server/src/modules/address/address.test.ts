import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../../test/harness.js';

const server = useTestServer();

const FULL = {
  address_one: '1 Main Street',
  address_two: 'Suite 5',
  city: 'Springfield',
  state: 'IL',
  postal_code: '62701',
  country_code: 'US',
};

const patch = (token: string, address: unknown) =>
  server.patch('/me/address.json', { token, body: { address } });

const storedAddresses = () =>
  server.sql(
    'select user_id, address_one, address_two, city, state, postal_code, country_code from addresses order by user_id',
  );

describe('GET /me/address.json', () => {
  it('answers 404 with an empty body when there is no address', async () => {
    const { token } = await server.createUser();
    const res = await server.get('/me/address.json', { token });
    expect(res.statusCode).toBe(404);
    expect(res.body).toBe('');
    expect(res.headers.etag).toBeUndefined();
  });

  it('shows the address with an ETag; 304 on If-None-Match; a change gives a new tag', async () => {
    const { token } = await server.createUser();
    const saved = (await patch(token, FULL)).json();
    const res = await server.get('/me/address.json', { token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(saved);
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^W\/".+"$/);
    const cached = await server.get('/me/address.json', { token, headers: { 'if-none-match': etag } });
    expect(cached.statusCode).toBe(304);
    expect(cached.body).toBe('');
    await patch(token, { city: 'Chicago' });
    const changed = await server.get('/me/address.json', { token, headers: { 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
  });

  it("never shows another user's address", async () => {
    const alice = await server.createUser();
    const bob = await server.createUser();
    await patch(bob.token, FULL);
    const res = await server.get('/me/address.json', { token: alice.token });
    expect(res.statusCode).toBe(404);
    expect(res.body).toBe('');
  });

  it('needs a token', async () => {
    const res = await server.get('/me/address.json');
    expect(res.statusCode).toBe(401);
    expect(res.body).toBe('HTTP Token: Access denied.');
  });
});

describe('PATCH /me/address.json', () => {
  it('creates the address when missing, normalising values', async () => {
    const { token, user } = await server.createUser();
    const res = await patch(token, {
      ...FULL,
      address_one: '  1 Main Street ',
      country_code: 'us',
      address_two: undefined,
      unknown: 'ignored',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
      address_one: '1 Main Street',
      address_two: null,
      city: 'Springfield',
      state: 'IL',
      postal_code: '62701',
      country_code: 'US',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: body.created_at,
    });
    expect(body).not.toHaveProperty('url');
    expect(await storedAddresses()).toEqual([{ user_id: user.id, ...FULL, address_two: null }]);
  });

  it('merges a partial change into the existing address', async () => {
    const { token, user } = await server.createUser();
    const created = (await patch(token, FULL)).json();
    await server.sql("update addresses set updated_at = now() - interval '1 hour'");
    const [backdated] = await server.sql<{ ms: number }>(
      'select round(extract(epoch from updated_at) * 1000)::float8 as ms from addresses',
    );
    const res = await patch(token, { city: 'Chicago', address_two: '' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      ...created,
      city: 'Chicago',
      address_two: null,
      updated_at: expect.any(String),
    });
    // The change moved `updated_at` on from the stored one.
    expect(Date.parse(body.updated_at)).toBeGreaterThan(backdated?.ms as number);
    expect(await storedAddresses()).toEqual([
      { user_id: user.id, ...FULL, city: 'Chicago', address_two: null },
    ]);
  });

  it('accepts the same payload again (PATCH is safe to repeat)', async () => {
    const { token } = await server.createUser();
    const first = (await patch(token, FULL)).json();
    const second = await patch(token, FULL);
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual({ ...first, updated_at: expect.any(String) });
    expect(await storedAddresses()).toHaveLength(1);
  });

  it('refuses an incomplete first address with every missing field, and stores nothing', async () => {
    const { token } = await server.createUser();
    const res = await patch(token, { city: 'Springfield' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      errors: {
        address_one: ["can't be blank"],
        state: ["can't be blank"],
        postal_code: ["can't be blank"],
        country_code: ["can't be blank"],
      },
    });
    expect(await storedAddresses()).toEqual([]);
  });

  it.each([
    [
      'blank fields',
      { address_one: '  ', city: '' },
      { address_one: ["can't be blank"], city: ["can't be blank"] },
    ],
    [
      'too long fields',
      { address_one: 'a'.repeat(201), address_two: 'b'.repeat(201), postal_code: 'p'.repeat(5000) },
      {
        address_one: ['is too long (maximum is 200 characters)'],
        address_two: ['is too long (maximum is 200 characters)'],
        postal_code: ['is too long (maximum is 200 characters)'],
      },
    ],
    [
      'an unknown country',
      { country_code: 'XX' },
      { country_code: ['is not a known ISO 3166-1 alpha-2 country code'] },
    ],
    [
      'wrong types',
      { city: 12, state: ['IL'], country_code: true },
      { city: ['must be a string'], state: ['must be a string'], country_code: ['must be a string'] },
    ],
    ['null in a required field', { city: null }, { city: ["can't be blank"] }],
  ])('refuses %s with 422 and leaves the address unchanged', async (_label, change, errors) => {
    const { token, user } = await server.createUser();
    await patch(token, FULL);
    const res = await patch(token, change);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors });
    expect(await storedAddresses()).toEqual([{ user_id: user.id, ...FULL }]);
  });

  it('names a missing wrapper and answers 400 to invalid JSON', async () => {
    const { token } = await server.createUser();
    const missing = await server.patch('/me/address.json', { token, body: FULL });
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toEqual({ errors: { address: ['is missing'] } });
    const notObject = await server.patch('/me/address.json', { token, body: { address: [FULL] } });
    expect(notObject.statusCode).toBe(422);
    expect(notObject.json()).toEqual({ errors: { address: ['must be an object'] } });
    const invalid = await server.patch('/me/address.json', { token, body: '{"address": {' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toEqual({ error: expect.any(String) });
    expect(await storedAddresses()).toEqual([]);
  });

  it('keeps one address per user under 20 concurrent PATCHes', async () => {
    const { token, user } = await server.createUser();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => patch(token, { ...FULL, address_one: `${i} Main Street` })),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    const ids = new Set(responses.map((r) => r.json().id));
    expect(ids.size).toBe(1);
    const rows = await server.sql<{ id: string; user_id: string }>('select id, user_id from addresses');
    expect(rows).toEqual([{ id: [...ids][0], user_id: user.id }]);
  });

  it('keeps both of two concurrent partial changes of different fields', async () => {
    const { token, user } = await server.createUser();
    await patch(token, FULL);
    const [a, b] = await Promise.all([patch(token, { city: 'Chicago' }), patch(token, { state: 'NY' })]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(await storedAddresses()).toEqual([{ user_id: user.id, ...FULL, city: 'Chicago', state: 'NY' }]);
  });

  it('refuses a read token with 401 and stores nothing', async () => {
    const { token } = await server.createUser({ permission: 'read' });
    const res = await patch(token, FULL);
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Token realm="Application"');
    expect(res.body).toBe('HTTP Token: Access denied.');
    expect(await storedAddresses()).toEqual([]);
  });
});

describe('DELETE /me/address.json', () => {
  it('deletes (204), then 404 with a message; the address may be created again', async () => {
    const { token, user } = await server.createUser();
    const first = (await patch(token, FULL)).json();
    const res = await server.delete('/me/address.json', { token });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await storedAddresses()).toEqual([]);
    const again = await server.delete('/me/address.json', { token });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ error: 'Not found' });
    expect((await server.get('/me/address.json', { token })).statusCode).toBe(404);

    const recreated = await patch(token, { ...FULL, city: 'Peoria' });
    expect(recreated.statusCode).toBe(200);
    expect(recreated.json().id).not.toBe(first.id);
    expect(await storedAddresses()).toEqual([{ user_id: user.id, ...FULL, city: 'Peoria' }]);
  });

  it("deletes only the caller's address", async () => {
    const alice = await server.createUser();
    const bob = await server.createUser();
    await patch(bob.token, FULL);
    const res = await server.delete('/me/address.json', { token: alice.token });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Not found' });
    expect(await storedAddresses()).toHaveLength(1);
  });

  it('refuses a read token with 401 and keeps the address', async () => {
    const writer = await server.createUser();
    await patch(writer.token, FULL);
    const reader = await server.post('/me/access_tokens.json', {
      token: writer.token,
      body: { access_token: { description: 'r', permission: 'read' } },
    });
    const res = await server.delete('/me/address.json', { token: reader.json().token });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Token realm="Application"');
    expect(await storedAddresses()).toHaveLength(1);
  });
});
