import { describe, expect, it } from 'vitest';
import { createForeign, helperAuth, useOrganization } from '../../../test/fixtures/organization.js';
import { FORBIDDEN, ISO, NOT_FOUND } from '../../../test/fixtures/responses.js';
import { useTestServer } from '../../../test/harness.js';

// The rules campaigns share with collabs (404s, roles, deleting, concurrent transitions) are
// tested for both in organization-resources/organization-resource.test.ts.

const server = useTestServer();

const DEFAULT_BRIEF_HTML = '<h2>About the campaign</h2>\n<h2>Content requirements</h2>\n<h2>Payout</h2>';
const PUBLISHED_MESSAGE = 'cannot be changed after the campaign is published';

const org = useOrganization(server, 'campaigns');

async function createCampaign(fields: Record<string, unknown> = {}) {
  const res = await server.post(`${org.base}.json`, { token: org.admin.token, body: { campaign: fields } });
  expect(res.statusCode).toBe(201);
  return res.json();
}

const foreignCampaign = () => createForeign(server, org, 'campaigns');

const fund = (id: string, amount: number) =>
  server.post(`/test_helpers${org.base}/${id}/fundings.json`, {
    ...helperAuth,
    body: { funding: { amount } },
  });
const setStatus = (id: string, status: string) =>
  server.post(`/test_helpers${org.base}/${id}/status.json`, { ...helperAuth, body: { status } });

/** A campaign funded and published through the API. */
async function publishedCampaign(fields: Record<string, unknown> = {}) {
  const created = await createCampaign(fields);
  expect((await fund(created.id, 10_000)).statusCode).toBe(201);
  expect(
    (await server.post(`${org.base}/${created.id}/publish.json`, { token: org.admin.token })).statusCode,
  ).toBe(303);
  return created;
}

/** The campaign as a member reads it. */
const shown = async (id: string) =>
  (await server.get(`${org.base}/${id}.json`, { token: org.member.token })).json();

/** The stored row, in wire terms, for "nothing changed" checks. */
const row = async (id: string) =>
  (
    await server.sql<Record<string, unknown>>(
      `select name, status, currency, cpm_amount::float8 as cpm, min_payout_amount::float8 as min,
              max_payout_amount::float8 as max, base_reward_amount::float8 as reward,
              total_budget_amount::float8 as total, published_at, paused_at
       from campaigns where id = ?`,
      [id],
    )
  )[0];

const countCampaigns = async () =>
  (await server.sql<{ n: number }>('select count(*)::int as n from campaigns'))[0]?.n;

describe('POST /organizations/:organization_id/campaigns.json', () => {
  it('creates a draft from the form defaults, budget totals at 0', async () => {
    server.queries.length = 0;
    const created = await createCampaign();
    expect(created).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
      name: 'Untitled campaign',
      status: 'draft',
      currency: 'usd',
      countries: ['US'],
      website: null,
      content_type: 'video',
      category: 'general',
      platform_ids: [],
      platform_music_id: null,
      cpm_amount: 0,
      min_payout_amount: 0,
      max_payout_amount: 0,
      base_reward_amount: 0,
      total_budget_amount: 0,
      used_amount: 0,
      unused_amount: 0,
      view_count: 0,
      submissions_count: 0,
      published_at: null,
      paused_at: null,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      url: `http://marketplace.test${org.base}/${created.id}.json`,
      banner_image_url: null,
      brief: DEFAULT_BRIEF_HTML,
    });
    // currency left out: the column default applies, and the stored value is presented.
    const insert = server.queries.find((q) => q.startsWith('insert into "campaigns"')) as string;
    const [columns, returning] = insert.split(') values (');
    expect(columns).not.toContain('"currency"');
    expect(returning).toContain('returning "currency"');
    expect(await server.sql('select organization_id, currency, brief from campaigns')).toEqual([
      {
        organization_id: org.id,
        currency: 'usd',
        brief: '## About the campaign\n\n## Content requirements\n\n## Payout\n',
      },
    ]);
  });

  it('stores every given field, normalised, and ignores read-only and unknown ones', async () => {
    const created = await createCampaign({
      name: 'Launch',
      website: 'https://launch.example/',
      content_type: 'short',
      category: 'beauty',
      currency: 'EUR',
      cpm_amount: 1500,
      min_payout_amount: 100,
      max_payout_amount: 1_000_000_000_000,
      base_reward_amount: 50,
      platform_ids: ['youtube', 'x', 'youtube'],
      platform_music_id: 'track-1',
      countries: ['de', 'AT'],
      brief: '**Go**',
      total_budget_amount: 999,
      used_amount: 5,
      unused_amount: 5,
      view_count: 7,
      submissions_count: 3,
      status: 'active',
      published_at: '2020-01-01T00:00:00.000Z',
      organization_id: 'other',
    });
    expect(created).toMatchObject({
      name: 'Launch',
      website: 'https://launch.example/',
      content_type: 'short',
      category: 'beauty',
      currency: 'eur',
      cpm_amount: 1500,
      min_payout_amount: 100,
      max_payout_amount: 1_000_000_000_000,
      base_reward_amount: 50,
      platform_ids: ['youtube', 'x'],
      platform_music_id: 'track-1',
      countries: ['DE', 'AT'],
      brief: '<p><strong>Go</strong></p>',
      total_budget_amount: 0,
      used_amount: 0,
      unused_amount: 0,
      view_count: 0,
      submissions_count: 0,
      status: 'draft',
      published_at: null,
    });
    expect(await row(created.id)).toMatchObject({ status: 'draft', total: 0, published_at: null });
  });

  it('accepts any minimum when no maximum is set', async () => {
    const created = await createCampaign({ min_payout_amount: 500, max_payout_amount: 0 });
    expect(created).toMatchObject({ min_payout_amount: 500, max_payout_amount: 0 });
  });

  it('platform_ids: duplicates are dropped before any bound (six entries of one platform are one), and a list past 250 entries says so', async () => {
    const created = await server.post(`${org.base}.json`, {
      token: org.admin.token,
      body: { campaign: { platform_ids: ['youtube', 'x', 'twitch', 'tiktok', 'instagram', 'youtube'] } },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().platform_ids).toEqual(['youtube', 'x', 'twitch', 'tiktok', 'instagram']);
    const before = await countCampaigns();
    const refused = await server.post(`${org.base}.json`, {
      token: org.admin.token,
      body: { campaign: { platform_ids: Array.from({ length: 251 }, () => 'youtube') } },
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toEqual({ errors: { platform_ids: ['has too many entries (maximum is 250)'] } });
    expect(await countCampaigns()).toBe(before);
  });

  it('lists every broken field at once and stores nothing', async () => {
    const res = await server.post(`${org.base}.json`, {
      token: org.admin.token,
      body: {
        campaign: {
          name: ' ',
          content_type: 5,
          currency: 'dollars',
          cpm_amount: -1,
          base_reward_amount: 1_000_000_000_001,
          platform_ids: ['myspace'],
          countries: ['XX'],
          brief: 'b'.repeat(20_001),
          website: 'ftp://x.example',
        },
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      errors: {
        name: ["can't be blank"],
        content_type: ['must be a string'],
        currency: ['is not a known ISO 4217 currency code'],
        cpm_amount: ['must be greater than or equal to 0'],
        base_reward_amount: ['must be less than or equal to 1000000000000'],
        platform_ids: [expect.any(String)],
        countries: ['is not a known ISO 3166-1 alpha-2 country code'],
        brief: ['is too long (maximum is 20000 characters)'],
        website: ['must be an http or https URL'],
      },
    });
    expect(await countCampaigns()).toBe(0);
  });

  it.each([
    [
      'a minimum above the maximum',
      { min_payout_amount: 200, max_payout_amount: 100 },
      {
        min_payout_amount: ['must be less than or equal to max_payout_amount'],
      },
    ],
    ['a fractional amount', { cpm_amount: 1.5 }, { cpm_amount: ['must be an integer'] }],
    ['an amount as a string', { cpm_amount: '5' }, { cpm_amount: ['must be an integer'] }],
  ])('refuses %s', async (_label, fields, errors) => {
    const res = await server.post(`${org.base}.json`, { token: org.admin.token, body: { campaign: fields } });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors });
    expect(await countCampaigns()).toBe(0);
  });

  it.each([
    ['no body', undefined, 422, { errors: { campaign: ['is missing'] } }],
    ['an empty object', {}, 422, { errors: { campaign: ['is missing'] } }],
    [
      'a wrapper that is not an object',
      { campaign: [] },
      422,
      { errors: { campaign: ['must be an object'] } },
    ],
    ['invalid JSON', '{"campaign":', 400, { error: 'The request body is not valid JSON' }],
  ])('refuses %s', async (_label, body, status, expected) => {
    const res = await server.post(`${org.base}.json`, {
      token: org.admin.token,
      ...(body !== undefined && { body }),
    });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual(expected);
    expect(await countCampaigns()).toBe(0);
  });

  it('is for admins with a write token only', async () => {
    const body = { campaign: {} };
    const member = await server.post(`${org.base}.json`, { token: org.member.token, body });
    expect(member.statusCode).toBe(403);
    expect(member.json()).toEqual(FORBIDDEN);
    expect((await server.post(`${org.base}.json`, { token: org.readAdmin.token, body })).statusCode).toBe(
      401,
    );
    const outsider = await server.post(`${org.base}.json`, { token: org.outsider.token, body });
    expect(outsider.statusCode).toBe(404);
    expect(outsider.json()).toEqual(NOT_FOUND);
    expect(await countCampaigns()).toBe(0);
  });
});

describe('GET campaigns', () => {
  it('lists every campaign of the organization newest first, without brief', async () => {
    const a = await createCampaign({ name: 'A' });
    const b = await createCampaign({ name: 'B' });
    const c = await createCampaign({ name: 'C' });
    await foreignCampaign();
    await server.sql(`update campaigns set created_at = '2030-01-01T00:00:00Z' where id in (?, ?)`, [
      a.id,
      b.id,
    ]);
    await server.sql(`update campaigns set created_at = '2020-01-01T00:00:00Z' where id = ?`, [c.id]);
    for (const user of [org.member, org.readAdmin]) {
      const res = await server.get(`${org.base}.json`, { token: user.token });
      expect(res.statusCode).toBe(200);
      expect(res.headers['total-count']).toBe('3');
      expect(res.headers['page-items']).toBe('20');
      const items = res.json();
      expect(items.map((i: { id: string }) => i.id)).toEqual([...[a.id, b.id].sort().reverse(), c.id]);
      expect(items[0]).not.toHaveProperty('brief');
      expect(items[0]).toHaveProperty('unused_amount', 0);
    }
    expect((await server.get(`${org.base}.json`, { token: org.outsider.token })).statusCode).toBe(404);
  });

  it('shows a campaign with its brief and an ETag; 304 on a match', async () => {
    const created = await createCampaign({ brief: '[x](javascript:alert(1)) <img src=x onerror=alert(1)>' });
    const res = await server.get(`${org.base}/${created.id}.json`, { token: org.member.token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(created);
    expect(res.json().brief).toBe('<p><a rel="nofollow noopener noreferrer">x</a> </p>');
    const again = await server.get(`${org.base}/${created.id}.json`, {
      token: org.member.token,
      headers: { 'if-none-match': res.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
  });
});

describe('PATCH /organizations/:organization_id/campaigns/:id.json', () => {
  it('updates the given fields and ignores the read-only ones', async () => {
    const created = await createCampaign({ name: 'Old', cpm_amount: 10 });
    const res = await server.patch(`${org.base}/${created.id}.json`, {
      token: org.admin.token,
      body: {
        campaign: {
          name: 'New',
          cpm_amount: 20,
          platform_music_id: null,
          total_budget_amount: 5_000,
          used_amount: 1,
          status: 'active',
        },
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      ...created,
      name: 'New',
      cpm_amount: 20,
      updated_at: expect.stringMatching(ISO),
    });
    expect(await row(created.id)).toMatchObject({ name: 'New', cpm: 20, total: 0, status: 'draft' });
  });

  it.each([
    [
      'a minimum above the stored maximum',
      { min_payout_amount: 0, max_payout_amount: 100 },
      { min_payout_amount: 200 },
    ],
    [
      'a maximum below the stored minimum',
      { min_payout_amount: 50, max_payout_amount: 0 },
      { max_payout_amount: 10 },
    ],
  ])('applies the payout rule to the merged values: %s', async (_label, initial, patch) => {
    const created = await createCampaign(initial);
    const res = await server.patch(`${org.base}/${created.id}.json`, {
      token: org.admin.token,
      body: { campaign: { ...patch, name: 'Changed' } },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      errors: { min_payout_amount: ['must be less than or equal to max_payout_amount'] },
    });
    expect(await row(created.id)).toMatchObject({
      name: 'Untitled campaign',
      min: initial.min_payout_amount,
      max: initial.max_payout_amount,
    });
  });

  it('lets a maximum of 0 lift the payout rule', async () => {
    const created = await createCampaign({ min_payout_amount: 50, max_payout_amount: 100 });
    const res = await server.patch(`${org.base}/${created.id}.json`, {
      token: org.admin.token,
      body: { campaign: { max_payout_amount: 0 } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ min_payout_amount: 50, max_payout_amount: 0 });
  });

  it('refuses each financial field after publication, with one error per field, and changes nothing', async () => {
    const created = await publishedCampaign({ cpm_amount: 10 });
    const before = await row(created.id);
    const res = await server.patch(`${org.base}/${created.id}.json`, {
      token: org.admin.token,
      body: {
        campaign: {
          name: 'Renamed',
          currency: 'eur',
          cpm_amount: 20,
          min_payout_amount: 1,
          max_payout_amount: 2,
          base_reward_amount: 3,
        },
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      errors: {
        currency: [PUBLISHED_MESSAGE],
        cpm_amount: [PUBLISHED_MESSAGE],
        min_payout_amount: [PUBLISHED_MESSAGE],
        max_payout_amount: [PUBLISHED_MESSAGE],
        base_reward_amount: [PUBLISHED_MESSAGE],
      },
    });
    expect(await row(created.id)).toEqual(before);
  });

  it('refuses only the financial field sent, with no payout error on a field left out (found by review)', async () => {
    const created = await publishedCampaign({ min_payout_amount: 500, max_payout_amount: 1000 });
    const before = await row(created.id);
    const res = await server.patch(`${org.base}/${created.id}.json`, {
      token: org.admin.token,
      body: { campaign: { max_payout_amount: 100 } },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { max_payout_amount: [PUBLISHED_MESSAGE] } });
    expect(await row(created.id)).toEqual(before);
  });

  it('still refuses a financial field once the published campaign is paused', async () => {
    const created = await publishedCampaign();
    await server.post(`${org.base}/${created.id}/pause.json`, { token: org.admin.token });
    const res = await server.patch(`${org.base}/${created.id}.json`, {
      token: org.admin.token,
      body: { campaign: { cpm_amount: 5 } },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { cpm_amount: [PUBLISHED_MESSAGE] } });
  });

  it('updates the other fields of a published campaign', async () => {
    const created = await publishedCampaign();
    const res = await server.patch(`${org.base}/${created.id}.json`, {
      token: org.admin.token,
      body: {
        campaign: {
          name: 'Live',
          brief: 'Now *live*',
          countries: ['fr'],
          platform_ids: ['x'],
          category: 'tech',
        },
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      name: 'Live',
      brief: '<p>Now <em>live</em></p>',
      countries: ['FR'],
      platform_ids: ['x'],
      category: 'tech',
      status: 'active',
    });
  });

  it('names a missing wrapper and refuses bad fields', async () => {
    const created = await createCampaign();
    const missing = await server.patch(`${org.base}/${created.id}.json`, {
      token: org.admin.token,
      body: {},
    });
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toEqual({ errors: { campaign: ['is missing'] } });
    const bad = await server.patch(`${org.base}/${created.id}.json`, {
      token: org.admin.token,
      body: { campaign: { cpm_amount: -5, purge_banner_image: 1 } },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual({
      errors: {
        cpm_amount: ['must be greater than or equal to 0'],
        purge_banner_image: ['must be "1" or "0"'],
      },
    });
  });
});

describe('DELETE /organizations/:organization_id/campaigns/:id.json', () => {
  it('is 422 on base for a draft with fundings', async () => {
    const created = await createCampaign();
    await fund(created.id, 100);
    const res = await server.delete(`${org.base}/${created.id}.json`, { token: org.admin.token });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { base: ['Cannot delete a campaign that has fundings'] } });
    expect(await countCampaigns()).toBe(1);
  });
});

describe('campaign transitions', () => {
  it('publish needs a budget: 422 on total_budget_amount, and the campaign stays a draft', async () => {
    const created = await createCampaign();
    const res = await server.post(`${org.base}/${created.id}/publish.json`, { token: org.admin.token });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { total_budget_amount: ['must be greater than 0 to publish'] } });
    expect(await row(created.id)).toMatchObject({ status: 'draft', published_at: null });
  });

  it('publish → pause → resume, with 303s to the HTML page and the timestamps', async () => {
    const created = await createCampaign();
    await fund(created.id, 500);
    const page = `http://marketplace.test${org.base}/${created.id}`;

    const published = await server.post(`${org.base}/${created.id}/publish.json`, { token: org.admin.token });
    expect(published.statusCode).toBe(303);
    expect(published.headers.location).toBe(page);
    expect(published.body).toBe('');
    const afterPublish = await shown(created.id);
    expect(afterPublish).toMatchObject({
      status: 'active',
      published_at: expect.stringMatching(ISO),
      paused_at: null,
    });

    const paused = await server.post(`${org.base}/${created.id}/pause.json`, { token: org.admin.token });
    expect(paused.statusCode).toBe(303);
    expect(paused.headers.location).toBe(page);
    expect(await shown(created.id)).toMatchObject({
      status: 'paused',
      published_at: afterPublish.published_at,
      paused_at: expect.stringMatching(ISO),
    });

    const resumed = await server.post(`${org.base}/${created.id}/resume.json`, { token: org.admin.token });
    expect(resumed.statusCode).toBe(303);
    expect(await shown(created.id)).toMatchObject({
      status: 'active',
      published_at: afterPublish.published_at,
      paused_at: null,
    });
  });
});

describe('campaign test helpers', () => {
  it('createFunding: 201 {id, amount, created_at}; total and unused budget grow by the amount', async () => {
    const created = await createCampaign();
    await server.sql('update campaigns set used_amount = 300 where id = ?', [created.id]);
    const res = await fund(created.id, 1_000);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
      amount: 1_000,
      created_at: expect.stringMatching(ISO),
    });
    expect(await shown(created.id)).toMatchObject({
      total_budget_amount: 1_000,
      used_amount: 300,
      unused_amount: 700,
    });
  });

  it('keeps the budget exact under 20 concurrent fundings', async () => {
    const created = await createCampaign();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => fund(created.id, 100 + i)));
    expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    const expected = Array.from({ length: 20 }, (_, i) => 100 + i).reduce((a, b) => a + b, 0);
    expect(await row(created.id)).toMatchObject({ total: expected });
    expect(await server.sql('select count(*)::int as n, sum(amount)::int as s from fundings')).toEqual([
      { n: 20, s: expected },
    ]);
  });

  it('refuses a funding of 0, a missing wrapper, unknown and foreign campaigns, and a missing key', async () => {
    const created = await createCampaign();
    const foreign = await foreignCampaign();
    const zero = await fund(created.id, 0);
    expect(zero.statusCode).toBe(422);
    expect(zero.json()).toEqual({ errors: { amount: ['must be greater than 0'] } });
    const missing = await server.post(`/test_helpers${org.base}/${created.id}/fundings.json`, {
      ...helperAuth,
      body: {},
    });
    expect(missing.json()).toEqual({ errors: { funding: ['is missing'] } });
    expect((await fund('nope', 10)).statusCode).toBe(404);
    expect((await fund(foreign.id, 10)).statusCode).toBe(404);
    const noKey = await server.post(`/test_helpers${org.base}/${created.id}/fundings.json`, {
      token: org.admin.token,
      body: { funding: { amount: 10 } },
    });
    expect(noKey.statusCode).toBe(401);
    expect(await server.sql('select id from fundings')).toEqual([]);
    expect(await row(created.id)).toMatchObject({ total: 0 });
  });

  it('setCampaignStatus forces a status: published_at when first active, paused_at when paused', async () => {
    const created = await createCampaign();
    const active = await setStatus(created.id, 'active');
    expect(active.statusCode).toBe(200);
    expect(active.json()).toMatchObject({
      id: created.id,
      status: 'active',
      published_at: expect.stringMatching(ISO),
      paused_at: null,
      brief: DEFAULT_BRIEF_HTML,
    });
    const paused = (await setStatus(created.id, 'paused')).json();
    expect(paused).toMatchObject({ status: 'paused', published_at: active.json().published_at });
    expect(paused.paused_at).toMatch(ISO);
    const again = (await setStatus(created.id, 'active')).json();
    expect(again).toMatchObject({
      status: 'active',
      published_at: active.json().published_at,
      paused_at: null,
    });
    const finished = (await setStatus(created.id, 'finished')).json();
    expect(finished.status).toBe('finished');

    const bad = await setStatus(created.id, 'archived');
    expect(bad.statusCode).toBe(422);
    expect(Object.keys(bad.json().errors)).toEqual(['status']);
    expect((await setStatus('nope', 'active')).statusCode).toBe(404);
  });
});
