import { buildPath, publicEndpoints } from '@app/schemas';
import { describe, expect, it } from 'vitest';
import { TEST_HELPERS_KEY, useTestServer } from './harness.js';

const server = useTestServer();

const headersOf = (res: { headers: Record<string, unknown> }) => ({
  current: res.headers['current-page'],
  items: res.headers['page-items'],
  count: res.headers['total-count'],
  pages: res.headers['total-pages'],
});

async function userWithOrganizations(n: number) {
  const { token } = await server.createUser();
  for (let i = 0; i < n; i++) {
    await server.post('/organizations.json', {
      token,
      body: { organization: { name: `Org ${String(i).padStart(2, '0')}` } },
    });
  }
  return token;
}

describe('pagination', () => {
  it('pages by 20 with the four headers, in a stable order', async () => {
    const token = await userWithOrganizations(45);
    const pages = [];
    for (const page of [1, 2, 3]) {
      const res = await server.get(`/organizations.json?page=${page}`, { token });
      expect(res.statusCode).toBe(200);
      expect(headersOf(res)).toEqual({ current: String(page), items: '20', count: '45', pages: '3' });
      pages.push(res.json().map((o: { name: string }) => o.name));
    }
    expect(pages.map((p) => p.length)).toEqual([20, 20, 5]);
    const stored = await server.sql<{ name: string }>(
      'select name from organizations order by created_at, id',
    );
    expect(pages.flat()).toEqual(stored.map((row) => row.name));
  });

  it('answers a page past the last with 200 [] and the headers', async () => {
    const token = await userWithOrganizations(3);
    const res = await server.get('/organizations.json?page=7', { token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
    expect(headersOf(res)).toEqual({ current: '7', items: '20', count: '3', pages: '1' });
  });

  it('has one page when empty, and ignores per_page', async () => {
    const { token } = await server.createUser();
    const res = await server.get('/organizations.json?per_page=100&limit=5', { token });
    expect(res.json()).toEqual([]);
    expect(headersOf(res)).toEqual({ current: '1', items: '20', count: '0', pages: '1' });
  });

  // Number() would read the second row as pages 16, 3, 10, 2, 1 and 1: only decimal digits are a page.
  it.each(['0', '-2', 'abc', '1.5', '', '0x10', '0b11', '1e1', '2.0', '%2B1', '%201'])(
    'refuses page=%j with 422',
    async (page) => {
      const { token } = await server.createUser();
      const res = await server.get(`/organizations.json?page=${page}`, { token });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({ errors: { page: ['must be a positive integer'] } });
    },
  );

  it('takes decimal digits, leading zeros too', async () => {
    const { token } = await server.createUser();
    const res = await server.get('/organizations.json?page=02', { token });
    expect(res.statusCode).toBe(200);
    expect(res.headers['current-page']).toBe('2');
  });

  it('checks a bad page after the token, tenancy and a NUL id, on a list read with the caller', async () => {
    const owner = await server.createUser();
    const stranger = await server.createUser();
    const org = await server.post('/organizations.json', {
      token: owner.token,
      body: { organization: { name: 'Paged' } },
    });
    const url = (id: string) => `/organizations/${encodeURIComponent(id)}/collabs.json?page=abc`;
    expect((await server.get(url(org.json().id))).statusCode).toBe(401);
    expect((await server.get(url(org.json().id), { token: stranger.token })).statusCode).toBe(404);
    expect((await server.get(url(`${org.json().id}\u0000`), { token: owner.token })).statusCode).toBe(404);
    const bad = await server.get(url(org.json().id), { token: owner.token });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual({ errors: { page: ['must be a positive integer'] } });
  });

  // The largest page the schema takes, and the first whose offset doubled passed a 32-bit integer
  // (page 53687093 was a 500 "out of range for type integer" on every list read in SQL).
  it.each(['53687093', '9007199254740991'])(
    'answers page=%s of every list with 200 [] and the headers',
    async (page) => {
      const { token, user } = await server.createUser();
      const org = await server.post('/organizations.json', {
        token,
        body: { organization: { name: 'Deep' } },
      });
      const orgId = org.json().id;
      await server.post(`/organizations/${orgId}/collabs.json`, { token, body: { collab: { name: 'C' } } });
      await server.post(`/organizations/${orgId}/campaigns.json`, {
        token,
        body: { campaign: { name: 'K' } },
      });
      const notified = await server.post(`/test_helpers/users/${user.id}/notifications.json`, {
        token: TEST_HELPERS_KEY,
        body: {
          notification: {
            type: 'Membership::JoinRequestReceivedNotifier',
            params: { user_name: 'A', organization_name: 'B' },
            record_type: 'Membership::JoinRequest',
            record_id: 'x',
          },
        },
      });
      expect(notified.statusCode).toBe(201);
      const lists = publicEndpoints.filter((e) => e.paginated);
      expect(lists.length).toBeGreaterThanOrEqual(7);
      for (const e of lists) {
        const url = buildPath(e.path, { organization_id: orgId });
        const first = await server.get(url, { token });
        expect([url, first.statusCode]).toEqual([url, 200]);
        const deep = await server.get(`${url}?page=${page}`, { token });
        expect([url, deep.statusCode, deep.body]).toEqual([url, 200, '[]']);
        expect(headersOf(deep)).toEqual({ ...headersOf(first), current: page });
      }
    },
  );
});
