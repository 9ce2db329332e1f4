/**
 * Per-account limits: past its limit a create is `422 {"errors": {"base": [...]}}` and stores
 * nothing, also when the creates come at once.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from './harness.js';

const server = useTestServer({
  limits: {
    organizations: 2,
    accessTokens: 3,
    socialAccounts: 2,
    collabsPerOrganization: 2,
    campaignsPerOrganization: 2,
  },
});

const count = async (table: string) => (await server.sql(`select id from ${table}`)).length;

function expectLimit(res: { statusCode: number; json(): unknown }, noun: string) {
  expect(res.statusCode).toBe(422);
  expect(res.json()).toEqual({ errors: { base: [expect.stringContaining(`limit of 2 ${noun}`)] } });
}

describe('per-account limits', () => {
  it('organizations a user owns', async () => {
    const { token } = await server.createUser();
    const create = () =>
      server.post('/organizations.json', { token, body: { organization: { name: 'Acme' } } });
    expect((await create()).statusCode).toBe(201);
    expect((await create()).statusCode).toBe(201);
    expectLimit(await create(), 'organizations');
    expect(await count('organizations')).toBe(2);
  });

  it("a user's access tokens (the one in use counts)", async () => {
    const { token } = await server.createUser();
    const create = () =>
      server.post('/me/access_tokens.json', {
        token,
        body: { access_token: { description: 'x', permission: 'read' } },
      });
    expect((await create()).statusCode).toBe(201);
    expect((await create()).statusCode).toBe(201);
    const res = await create();
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { base: [expect.stringContaining('limit of 3 access tokens')] } });
    expect(await count('access_tokens')).toBe(3);
  });

  it("a user's social accounts", async () => {
    const { token } = await server.createUser();
    const create = (handle: string) =>
      server.post('/me/social_accounts.json', {
        token,
        body: { social_account: { platform_id: 'x', account_url: `https://x.com/${handle}` } },
      });
    expect((await create('a')).statusCode).toBe(201);
    expect((await create('b')).statusCode).toBe(201);
    expectLimit(await create('c'), 'social accounts');
    expect(await count('social_accounts')).toBe(2);
  });

  it.each([
    ['collabs', 'collab'],
    ['campaigns', 'campaign'],
  ])("an organization's %s, also under 10 concurrent creates", async (table, key) => {
    const { token } = await server.createUser();
    const org = (
      await server.post('/organizations.json', { token, body: { organization: { name: 'Acme' } } })
    ).json();
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        server.post(`/organizations/${org.id}/${table}.json`, { token, body: { [key]: {} } }),
      ),
    );
    expect(responses.map((r) => r.statusCode).sort()).toEqual([201, 201, ...Array(8).fill(422)]);
    for (const res of responses.filter((r) => r.statusCode === 422)) expectLimit(res, table);
    expect(await count(table)).toBe(2);
  });
});
