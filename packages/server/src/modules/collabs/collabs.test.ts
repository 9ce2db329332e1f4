import { describe, expect, it } from 'vitest';
import { createForeign, helperAuth, useOrganization } from '../../../test/fixtures/organization.js';
import { FORBIDDEN, ISO, NOT_FOUND } from '../../../test/fixtures/responses.js';
import { useTestServer } from '../../../test/harness.js';

// The rules collabs share with campaigns (404s, roles, deleting, concurrent transitions) are
// tested for both in organization-resources/organization-resource.test.ts.

const server = useTestServer();

const DEFAULT_BRIEF_HTML =
  '<h2>About the product</h2>\n<h2>What we are looking for</h2>\n<h2>Deliverables</h2>';

const org = useOrganization(server, 'collabs');

async function createCollab(body?: unknown, token = org.admin.token) {
  const res = await server.post(`${org.base}.json`, { token, ...(body !== undefined && { body }) });
  expect(res.statusCode).toBe(201);
  return res.json();
}

const foreignCollab = () => createForeign(server, org, 'collabs');

const collabRows = () =>
  server.sql<{ id: string; name: string; state: string; currency: string }>(
    'select id, name, state, currency from collabs order by name',
  );

describe('POST /organizations/:organization_id/collabs.json', () => {
  it.each([
    ['no body at all', undefined],
    ['an empty object', {}],
    ['an empty collab', { collab: {} }],
  ])('creates a draft from the defaults with %s', async (_label, body) => {
    const created = await createCollab(body);
    expect(created).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
      name: 'Untitled collab',
      state: 'draft',
      currency: 'usd',
      countries: ['US'],
      website: null,
      require_boosted_ads: false,
      requires_product_shipment: false,
      submissions_count: 0,
      completed_count: 0,
      published_at: null,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      url: `http://marketplace.test${org.base}/${created.id}.json`,
      banner_image_url: null,
      brief: DEFAULT_BRIEF_HTML,
    });
    expect(await server.sql('select organization_id, brief, countries from collabs')).toEqual([
      {
        organization_id: org.id,
        brief: '## About the product\n\n## What we are looking for\n\n## Deliverables\n',
        countries: ['US'],
      },
    ]);
  });

  it('leaves currency to the column default when it is not given', async () => {
    server.queries.length = 0;
    const created = await createCollab();
    const insert = server.queries.find((q) => q.startsWith('insert into "collabs"'));
    const [columns, returning] = (insert as string).split(') values (');
    expect(columns).not.toContain('"currency"');
    expect(returning).toContain('returning "currency"');
    expect(created.currency).toBe('usd');
    expect(await collabRows()).toEqual([
      { id: created.id, name: 'Untitled collab', state: 'draft', currency: 'usd' },
    ]);
  });

  it('stores every given field, normalised, and ignores unknown and read-only ones', async () => {
    const created = await createCollab({
      collab: {
        name: '  Summer drop ',
        website: 'https://shop.example/summer',
        currency: 'EUR',
        countries: ['gb', 'FR', 'gb'],
        require_boosted_ads: true,
        requires_product_shipment: true,
        brief: '# Hello\n\n**Bold** [shop](https://shop.example)',
        state: 'published',
        submissions_count: 7,
        organization_id: 'elsewhere',
        admin: true,
      },
    });
    expect(created).toMatchObject({
      name: 'Summer drop',
      website: 'https://shop.example/summer',
      currency: 'eur',
      countries: ['GB', 'FR'],
      require_boosted_ads: true,
      requires_product_shipment: true,
      state: 'draft',
      submissions_count: 0,
      brief:
        '<h1>Hello</h1>\n<p><strong>Bold</strong> <a href="https://shop.example" rel="nofollow noopener noreferrer">shop</a></p>',
    });
    expect(await server.sql('select organization_id, state, submissions_count from collabs')).toEqual([
      { organization_id: org.id, state: 'draft', submissions_count: 0 },
    ]);
  });

  it('lists every broken field at once and stores nothing', async () => {
    const res = await server.post(`${org.base}.json`, {
      token: org.admin.token,
      body: {
        collab: {
          name: '',
          website: 'javascript:alert(1)',
          currency: 'xyz',
          countries: ['ZZ'],
          require_boosted_ads: 'yes',
          requires_product_shipment: 1,
          brief: 'x'.repeat(20_001),
        },
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      errors: {
        name: ["can't be blank"],
        website: ['must be an http or https URL'],
        currency: ['is not a known ISO 4217 currency code'],
        countries: ['is not a known ISO 3166-1 alpha-2 country code'],
        require_boosted_ads: ['must be true or false'],
        requires_product_shipment: ['must be true or false'],
        brief: ['is too long (maximum is 20000 characters)'],
      },
    });
    expect(await collabRows()).toEqual([]);
  });

  it('accepts a brief of exactly 20 000 characters', async () => {
    const created = await createCollab({ collab: { brief: 'a'.repeat(20_000) } });
    expect(created.brief).toBe(`<p>${'a'.repeat(20_000)}</p>`);
  });

  it.each([
    ['a wrapper that is not an object', { collab: 'x' }, 422, { errors: { collab: ['must be an object'] } }],
    ['a name of the wrong type', { collab: { name: 5 } }, 422, { errors: { name: ['must be a string'] } }],
    [
      'countries that are not a list',
      { collab: { countries: 'US' } },
      422,
      {
        errors: { countries: ['must be an array of country codes'] },
      },
    ],
    [
      'an empty country list',
      { collab: { countries: [] } },
      422,
      { errors: { countries: ["can't be empty"] } },
    ],
    [
      'a huge name',
      { collab: { name: 'n'.repeat(201) } },
      422,
      {
        errors: { name: ['is too long (maximum is 200 characters)'] },
      },
    ],
    ['invalid JSON', '{"collab": {', 400, { error: 'The request body is not valid JSON' }],
  ])('refuses %s and stores nothing', async (_label, body, status, expected) => {
    const res = await server.post(`${org.base}.json`, { token: org.admin.token, body });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual(expected);
    expect(await collabRows()).toEqual([]);
  });

  it('refuses a website query that is not an http(s) URL', async () => {
    const res = await server.post(`${org.base}.json?website=${encodeURIComponent('file:///etc/passwd')}`, {
      token: org.admin.token,
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { website: ['must be an http or https URL'] } });
    expect(await collabRows()).toEqual([]);
  });

  it('is for admins with a write token only', async () => {
    const member = await server.post(`${org.base}.json`, { token: org.member.token });
    expect(member.statusCode).toBe(403);
    expect(member.json()).toEqual(FORBIDDEN);
    const read = await server.post(`${org.base}.json`, { token: org.readAdmin.token });
    expect(read.statusCode).toBe(401);
    expect(read.headers['www-authenticate']).toBe('Token realm="Application"');
    const outsider = await server.post(`${org.base}.json`, { token: org.outsider.token });
    expect(outsider.statusCode).toBe(404);
    expect(outsider.json()).toEqual(NOT_FOUND);
    expect((await server.post(`${org.base}.json`)).statusCode).toBe(401);
    expect(await collabRows()).toEqual([]);
  });
});

describe('GET /organizations/:organization_id/collabs.json', () => {
  it('lists every collab of the organization newest first, id breaking ties, without brief', async () => {
    const a = await createCollab({ collab: { name: 'A' } });
    const b = await createCollab({ collab: { name: 'B' } });
    const c = await createCollab({ collab: { name: 'C' } });
    await foreignCollab();
    await server.sql(`update collabs set created_at = '2030-01-01T00:00:00Z' where id in (?, ?)`, [
      a.id,
      b.id,
    ]);
    await server.sql(`update collabs set created_at = '2020-01-01T00:00:00Z' where id = ?`, [c.id]);
    const tied = [a.id, b.id].sort().reverse();

    for (const user of [org.member, org.readAdmin, org.admin]) {
      const res = await server.get(`${org.base}.json`, { token: user.token });
      expect(res.statusCode).toBe(200);
      expect(res.headers['total-count']).toBe('3');
      expect(res.headers['total-pages']).toBe('1');
      expect(res.headers['current-page']).toBe('1');
      expect(res.headers['page-items']).toBe('20');
      expect(res.headers.etag).toBeUndefined();
      const items = res.json();
      expect(items.map((i: { id: string }) => i.id)).toEqual([...tied, c.id]);
      expect(items[0]).not.toHaveProperty('brief');
      expect(Object.keys(items[0]).sort()).toEqual(
        [
          'banner_image_url',
          'completed_count',
          'countries',
          'created_at',
          'currency',
          'id',
          'name',
          'published_at',
          'require_boosted_ads',
          'requires_product_shipment',
          'state',
          'submissions_count',
          'updated_at',
          'url',
          'website',
        ].sort(),
      );
    }
  });

  it('pages by 20', async () => {
    for (let i = 0; i < 21; i++) await createCollab();
    const second = await server.get(`${org.base}.json?page=2`, { token: org.member.token });
    expect(second.json()).toHaveLength(1);
    expect(second.headers['total-pages']).toBe('2');
    const past = await server.get(`${org.base}.json?page=3`, { token: org.member.token });
    expect(past.statusCode).toBe(200);
    expect(past.json()).toEqual([]);
    expect(past.headers['current-page']).toBe('3');
    const bad = await server.get(`${org.base}.json?page=0`, { token: org.member.token });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual({ errors: { page: ['must be a positive integer'] } });
  });

  it('is 404 for non-members and 401 without a token', async () => {
    await createCollab();
    const res = await server.get(`${org.base}.json`, { token: org.outsider.token });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(NOT_FOUND);
    expect((await server.get(`${org.base}.json`)).statusCode).toBe(401);
  });
});

describe('GET /organizations/:organization_id/collabs/:id.json', () => {
  it('shows the collab with its rendered brief and a weak ETag; If-None-Match gives 304', async () => {
    const created = await createCollab({ collab: { brief: '## Hi <script>alert(1)</script>' } });
    const res = await server.get(`${org.base}/${created.id}.json`, { token: org.member.token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(created);
    expect(res.json().brief).toBe('<h2>Hi </h2>');
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^W\/".+"$/);
    const again = await server.get(`${org.base}/${created.id}.json`, {
      token: org.readAdmin.token,
      headers: { 'if-none-match': etag },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('changes its ETag when the collab changes', async () => {
    const created = await createCollab();
    const before = (await server.get(`${org.base}/${created.id}.json`, { token: org.member.token })).headers
      .etag;
    await server.post(`/test_helpers${org.base}/${created.id}/submissions.json`, helperAuth);
    const after = await server.get(`${org.base}/${created.id}.json`, {
      token: org.member.token,
      headers: { 'if-none-match': before as string },
    });
    expect(after.statusCode).toBe(200);
    expect(after.json().submissions_count).toBe(1);
  });
});

describe('PATCH /organizations/:organization_id/collabs/:id.json', () => {
  it('updates the given fields only and answers 200 with the collab', async () => {
    const created = await createCollab({ collab: { name: 'Old', website: 'https://old.example/' } });
    await server.sql(`update collabs set updated_at = '2020-01-01T00:00:00Z'`);
    const res = await server.patch(`${org.base}/${created.id}.json`, {
      token: org.admin.token,
      body: {
        collab: {
          name: 'New',
          currency: 'JPY',
          countries: ['jp'],
          website: '',
          brief: '_x_',
          state: 'paused',
        },
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      ...created,
      name: 'New',
      currency: 'jpy',
      countries: ['JP'],
      website: null,
      brief: '<p><em>x</em></p>',
      updated_at: expect.stringMatching(ISO),
    });
    expect(res.json().updated_at).not.toBe('2020-01-01T00:00:00.000Z');
    expect(await server.sql('select name, currency, website, state from collabs')).toEqual([
      { name: 'New', currency: 'jpy', website: null, state: 'draft' },
    ]);
  });

  it('refuses bad fields with 422 and changes nothing', async () => {
    const created = await createCollab({ collab: { name: 'Keep' } });
    const res = await server.patch(`${org.base}/${created.id}.json`, {
      token: org.admin.token,
      body: { collab: { name: 'Other', countries: ['XX'], purge_banner_image: 'yes' } },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      errors: {
        countries: ['is not a known ISO 3166-1 alpha-2 country code'],
        purge_banner_image: ['must be "1" or "0"'],
      },
    });
    expect(await collabRows()).toEqual([{ id: created.id, name: 'Keep', state: 'draft', currency: 'usd' }]);
  });

  it('names a missing wrapper', async () => {
    const created = await createCollab();
    const res = await server.patch(`${org.base}/${created.id}.json`, {
      token: org.admin.token,
      body: { name: 'x' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { collab: ['is missing'] } });
  });
});

describe('DELETE /organizations/:organization_id/collabs/:id.json', () => {
  it('is 422 on base for a draft with submissions', async () => {
    const created = await createCollab();
    await server.post(`/test_helpers${org.base}/${created.id}/submissions.json`, helperAuth);
    const res = await server.delete(`${org.base}/${created.id}.json`, { token: org.admin.token });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { base: ['Cannot delete a collab that has submissions'] } });
    expect(await collabRows()).toHaveLength(1);
    expect(await server.sql('select count(*)::int as n from submissions')).toEqual([{ n: 1 }]);
  });
});

describe('collab transitions', () => {
  const setState = (id: string, state: string) =>
    server.post(`/test_helpers${org.base}/${id}/state.json`, { ...helperAuth, body: { state } });
  const stateOf = async (id: string) =>
    (await server.sql<{ state: string }>('select state from collabs where id = ?', [id]))[0]?.state;

  it('submit: draft → submitted_for_review, 303 to the HTML page, no body', async () => {
    const created = await createCollab();
    const res = await server.post(`${org.base}/${created.id}/submit.json`, { token: org.admin.token });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`http://marketplace.test${org.base}/${created.id}`);
    expect(res.body).toBe('');
    expect(await stateOf(created.id)).toBe('submitted_for_review');
  });

  it('a client that follows the 303 with Accept: application/json reads the resource there (the document said 406)', async () => {
    const created = await createCollab();
    const res = await server.post(`${org.base}/${created.id}/submit.json`, { token: org.admin.token });
    const page = new URL(res.headers.location as string).pathname;
    const followed = await server.get(page, {
      token: org.admin.token,
      headers: { accept: 'application/json' },
    });
    expect(followed.statusCode).toBe(200);
    expect(followed.json()).toEqual((await server.get(`${page}.json`, { token: org.admin.token })).json());
    expect(followed.json()).toMatchObject({ id: created.id, state: 'submitted_for_review' });
    // Without the header, the page is not JSON: 406, as the document says.
    const plain = await server.get(page, { token: org.admin.token });
    expect(plain.statusCode).toBe(406);
  });

  it('pause: published → paused, and unpause: paused → published', async () => {
    const created = await createCollab();
    await setState(created.id, 'published');
    const paused = await server.post(`${org.base}/${created.id}/pause.json`, { token: org.admin.token });
    expect(paused.statusCode).toBe(303);
    expect(await stateOf(created.id)).toBe('paused');
    const unpaused = await server.post(`${org.base}/${created.id}/unpause.json`, { token: org.admin.token });
    expect(unpaused.statusCode).toBe(303);
    expect(unpaused.headers.location).toBe(`http://marketplace.test${org.base}/${created.id}`);
    expect(await stateOf(created.id)).toBe('published');
  });
});

describe('collab test helpers', () => {
  it('createSubmission: 201 {id, created_at} and submissions_count + 1', async () => {
    const created = await createCollab();
    const res = await server.post(`/test_helpers${org.base}/${created.id}/submissions.json`, helperAuth);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
      created_at: expect.stringMatching(ISO),
    });
    expect(await server.sql('select id, collab_id from submissions')).toEqual([
      { id: res.json().id, collab_id: created.id },
    ]);
    const shown = await server.get(`${org.base}/${created.id}.json`, { token: org.member.token });
    expect(shown.json().submissions_count).toBe(1);
  });

  it('keeps submissions_count exact under 20 concurrent submissions', async () => {
    const created = await createCollab();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        server.post(`/test_helpers${org.base}/${created.id}/submissions.json`, helperAuth),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    expect(await server.sql('select submissions_count from collabs where id = ?', [created.id])).toEqual([
      { submissions_count: 20 },
    ]);
    expect(await server.sql('select count(*)::int as n from submissions')).toEqual([{ n: 20 }]);
  });

  it('createSubmission is 404 for an unknown or foreign collab and 401 without the key', async () => {
    const foreign = await foreignCollab();
    expect((await server.post(`/test_helpers${org.base}/nope/submissions.json`, helperAuth)).statusCode).toBe(
      404,
    );
    expect(
      (await server.post(`/test_helpers${org.base}/${foreign.id}/submissions.json`, helperAuth)).statusCode,
    ).toBe(404);
    const created = await createCollab();
    const res = await server.post(`/test_helpers${org.base}/${created.id}/submissions.json`, {
      token: org.admin.token,
    });
    expect(res.statusCode).toBe(401);
    expect(await server.sql('select id from submissions')).toEqual([]);
  });

  it('setCollabState forces a state and sets published_at when first published', async () => {
    const created = await createCollab();
    const url = `/test_helpers${org.base}/${created.id}/state.json`;
    const published = await server.post(url, { ...helperAuth, body: { state: 'published' } });
    expect(published.statusCode).toBe(200);
    expect(published.json()).toMatchObject({
      id: created.id,
      state: 'published',
      published_at: expect.stringMatching(ISO),
    });
    expect(published.json().brief).toBe(DEFAULT_BRIEF_HTML);
    const firstPublishedAt = published.json().published_at;

    await server.post(url, { ...helperAuth, body: { state: 'paused' } });
    const again = await server.post(url, { ...helperAuth, body: { state: 'published' } });
    expect(again.json().published_at).toBe(firstPublishedAt);

    const bad = await server.post(url, { ...helperAuth, body: { state: 'archived' } });
    expect(bad.statusCode).toBe(422);
    expect(Object.keys(bad.json().errors)).toEqual(['state']);
  });
});
