/**
 * Per-account limits: past its limit a create is `422 {"errors": {"base": [...]}}` and stores
 * nothing, also when the creates come at once.
 */
import { describe, expect, it } from 'vitest';
import { PNG } from './fixtures/organization.js';
import { useTestServer } from './harness.js';

const server = useTestServer({
  limits: {
    organizations: 2,
    accessTokens: 3,
    socialAccounts: 2,
    collabsPerOrganization: 2,
    campaignsPerOrganization: 2,
    briefBytesPerOrganization: 2_000,
    uploadBytesPerOrganization: 1_000,
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

describe("the bytes of an organization's briefs (MARKETPLACE_LIMIT_BRIEF_BYTES, here 2 000)", () => {
  const briefBytes = async () =>
    (
      await server.sql<{ bytes: number }>(
        `select (coalesce((select sum(octet_length(brief) + octet_length(brief_html)) from collabs), 0)
          + coalesce((select sum(octet_length(brief) + octet_length(brief_html)) from campaigns), 0))::float8 as bytes`,
      )
    )[0]?.bytes;

  it('refuses a create or an update that would pass them (422 on brief), counting collabs and campaigns together', async () => {
    const { token } = await server.createUser();
    const org = (
      await server.post('/organizations.json', { token, body: { organization: { name: 'Acme' } } })
    ).json();
    const base = `/organizations/${org.id}`;
    // 600 bytes of Markdown and about 610 of HTML: one fits, two do not.
    const long = (c: string) => c.repeat(600);
    const collab = await server.post(`${base}/collabs.json`, {
      token,
      body: { collab: { brief: long('a') } },
    });
    expect(collab.statusCode).toBe(201);
    const stored = await briefBytes();

    const campaign = await server.post(`${base}/campaigns.json`, {
      token,
      body: { campaign: { brief: long('b') } },
    });
    expect(campaign.statusCode).toBe(422);
    expect(campaign.json()).toEqual({
      errors: {
        brief: [
          expect.stringContaining("would take the organization's briefs past their limit of 2000 bytes"),
        ],
      },
    });
    expect(await count('campaigns')).toBe(0);

    // A campaign with a short brief fits; growing its brief past the limit does not.
    const small = await server.post(`${base}/campaigns.json`, {
      token,
      body: { campaign: { brief: 'Short' } },
    });
    expect(small.statusCode).toBe(201);
    const grow = await server.patch(`${base}/campaigns/${small.json().id}.json`, {
      token,
      body: { campaign: { name: 'Renamed', brief: long('c') } },
    });
    expect(grow.statusCode).toBe(422);
    expect(Object.keys(grow.json().errors)).toEqual(['brief']);
    expect(await server.sql('select name, brief from campaigns')).toEqual([
      { name: 'Untitled campaign', brief: 'Short' },
    ]);

    // Rewriting the long brief at the same size is taken (only the new brief counts, not both).
    const rewrite = await server.patch(`${base}/collabs/${collab.json().id}.json`, {
      token,
      body: { collab: { brief: long('d') } },
    });
    expect(rewrite.statusCode).toBe(200);
    expect(await briefBytes()).toBeLessThanOrEqual(2_000);
    expect(await briefBytes()).toBeGreaterThan(stored as number);
  });

  it('puts the error on base when the brief is the default one (not in the payload)', async () => {
    const { token } = await server.createUser();
    const org = (
      await server.post('/organizations.json', { token, body: { organization: { name: 'Acme' } } })
    ).json();
    expect(
      (
        await server.post(`/organizations/${org.id}/collabs.json`, {
          token,
          body: { collab: { brief: 'x'.repeat(950) } },
        })
      ).statusCode,
    ).toBe(201);
    const res = await server.post(`/organizations/${org.id}/campaigns.json`, {
      token,
      body: { campaign: { name: 'Default brief' } },
    });
    expect(res.statusCode).toBe(422);
    expect(Object.keys(res.json().errors)).toEqual(['base']);
  });

  it('is per organization: another organization still takes briefs', async () => {
    const { token } = await server.createUser();
    const orgs = [];
    for (const name of ['One', 'Two'])
      orgs.push(
        (await server.post('/organizations.json', { token, body: { organization: { name } } })).json(),
      );
    const create = (id: string, brief: string) =>
      server.post(`/organizations/${id}/collabs.json`, { token, body: { collab: { brief } } });
    expect((await create(orgs[0].id, 'e'.repeat(900))).statusCode).toBe(201);
    expect((await create(orgs[0].id, 'f'.repeat(900))).statusCode).toBe(422);
    expect((await create(orgs[1].id, 'g'.repeat(900))).statusCode).toBe(201);
  });
});

// A security review found no bound on the bytes of images: 10 000 collabs and 10 000 campaigns of
// an organization could each keep a 5 MiB banner (about 100 GB), which a prefill even downloads
// for the caller.
describe("the bytes of an organization's images (MARKETPLACE_LIMIT_UPLOAD_BYTES, here 1 000)", () => {
  /** A PNG of `size` bytes (its signature and header, then padding). */
  const png = (size: number) => new Blob([PNG, Buffer.alloc(size - PNG.length, 1)], { type: 'image/png' });
  const form = (key: string, field: string, size: number, extra: Record<string, string> = {}) => {
    const data = new FormData();
    data.append(`${key}[${field}]`, png(size), 'image.png');
    for (const [name, value] of Object.entries(extra)) data.append(`${key}[${name}]`, value);
    return data;
  };
  const imageBytes = async () =>
    (
      await server.sql<{ bytes: number }>(
        `select (coalesce((select sum(logo_bytes) from organizations), 0)
          + coalesce((select sum(banner_image_bytes) from collabs), 0)
          + coalesce((select sum(banner_image_bytes) from campaigns), 0))::float8 as bytes`,
      )
    )[0]?.bytes;

  it('refuses an image that would pass them (422 on its field, nothing stored); a replaced or purged one counts no more', async () => {
    const { token } = await server.createUser();
    const created = await server.post('/organizations.json', {
      token,
      form: form('organization', 'logo', 600, { name: 'Pics' }),
    });
    expect(created.statusCode).toBe(201);
    const base = `/organizations/${created.json().id}`;
    const uploadsBefore = (await server.storedUploads()).length;

    const tooMuch = await server.post(`${base}/collabs.json`, {
      token,
      form: form('collab', 'banner_image', 500),
    });
    expect(tooMuch.statusCode).toBe(422);
    expect(tooMuch.json()).toEqual({
      errors: {
        banner_image: [
          expect.stringContaining("would take the organization's images past their limit of 1000 bytes"),
        ],
      },
    });
    expect(await count('collabs')).toBe(0);
    expect(await server.storedUploads()).toHaveLength(uploadsBefore);

    const fits = await server.post(`${base}/campaigns.json`, {
      token,
      form: form('campaign', 'banner_image', 300),
    });
    expect(fits.statusCode).toBe(201);
    expect(await imageBytes()).toBe(900);
    const campaign = `${base}/campaigns/${fits.json().id}.json`;
    // Replacing the campaign's 300 bytes with 450 would make 1 050.
    const grow = await server.patch(campaign, { token, form: form('campaign', 'banner_image', 450) });
    expect(grow.statusCode).toBe(422);
    expect(Object.keys(grow.json().errors)).toEqual(['banner_image']);
    expect(await imageBytes()).toBe(900);

    // A smaller logo in place of the 600 bytes leaves room for it.
    const smaller = await server.patch(`${base}.json`, { token, form: form('organization', 'logo', 100) });
    expect(smaller.statusCode).toBe(200);
    const replaced = await server.patch(campaign, { token, form: form('campaign', 'banner_image', 450) });
    expect(replaced.statusCode).toBe(200);
    expect(await imageBytes()).toBe(550);

    // A purge is always taken, and gives its bytes back.
    const purged = await server.patch(campaign, { token, body: { campaign: { purge_banner_image: '1' } } });
    expect(purged.statusCode).toBe(200);
    expect(await imageBytes()).toBe(100);
  });

  it('is per organization, and a logo larger than the whole limit is refused at create', async () => {
    const { token } = await server.createUser();
    const big = await server.post('/organizations.json', {
      token,
      form: form('organization', 'logo', 1_001, { name: 'Big' }),
    });
    expect(big.statusCode).toBe(422);
    expect(Object.keys(big.json().errors)).toEqual(['logo']);
    const other = await server.post('/organizations.json', {
      token,
      form: form('organization', 'logo', 1_000, { name: 'Full' }),
    });
    expect(other.statusCode).toBe(201);
  });
});
