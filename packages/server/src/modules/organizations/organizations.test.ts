import { describe, expect, it } from 'vitest';
import { FORBIDDEN, ISO, NOT_FOUND } from '../../../test/fixtures/responses.js';
import { TEST_HELPERS_KEY, useTestServer } from '../../../test/harness.js';

const server = useTestServer();

const setSubscription = (orgId: string, subscription: unknown, token: string | null = TEST_HELPERS_KEY) =>
  server.post(`/test_helpers/organizations/${orgId}/subscription.json`, { token, body: { subscription } });

async function createOrganization(token: string, organization: Record<string, unknown> = { name: 'Acme' }) {
  const res = await server.post('/organizations.json', { token, body: { organization } });
  expect(res.statusCode).toBe(201);
  return res.json();
}

async function addMember(organizationId: string, userId: string, role: 'member' | 'admin') {
  const res = await server.post(`/test_helpers/organizations/${organizationId}/members.json`, {
    token: TEST_HELPERS_KEY,
    body: { membership: { user_id: userId, role } },
  });
  expect(res.statusCode).toBe(201);
  return res.json();
}

const organizationRows = () =>
  server.sql('select id, name, privacy_setting, website, logo from organizations order by name');

describe('POST /organizations.json', () => {
  it('creates an organization with defaults and makes the creator its owner', async () => {
    const { token, user } = await server.createUser();
    const res = await server.post('/organizations.json', { token, body: { organization: { name: 'Acme' } } });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
      name: 'Acme',
      privacy_setting: 'private',
      website: null,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      url: `http://marketplace.test/organizations/${created.id}.json`,
    });
    expect(await server.sql('select organization_id, user_id, role, is_owner from memberships')).toEqual([
      { organization_id: created.id, user_id: user.id, role: 'admin', is_owner: true },
    ]);
    expect(await organizationRows()).toEqual([
      { id: created.id, name: 'Acme', privacy_setting: 'private', website: null, logo: null },
    ]);
  });

  it('stores privacy_setting and website, trims the name and ignores unknown fields', async () => {
    const { token } = await server.createUser();
    const created = await createOrganization(token, {
      name: '  Acme  ',
      privacy_setting: 'public',
      website: 'https://acme.example/shop',
      subscription_active: true,
      id: 'chosen-id',
    });
    expect(created).toMatchObject({
      name: 'Acme',
      privacy_setting: 'public',
      website: 'https://acme.example/shop',
    });
    expect(created.id).not.toBe('chosen-id');
    expect(await server.sql('select subscription_active from organizations')).toEqual([
      { subscription_active: false },
    ]);
  });

  it('echoes a website as sent and refuses a host with quotes or backticks (decisions §6)', async () => {
    const { token } = await server.createUser();
    const created = await createOrganization(token, {
      name: 'Owner',
      website: ' https://Owner.example.com ',
    });
    expect(created.website).toBe('https://Owner.example.com');
    const shown = await server.get(`/organizations/${created.id}.json`, { token });
    expect(shown.json().website).toBe('https://Owner.example.com');
    const patched = await server.patch(`/organizations/${created.id}.json`, {
      token,
      body: { organization: { website: 'https://owner.example.com/a b?q="<x>"' } },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().website).toBe('https://owner.example.com/a%20b?q=%22%3Cx%3E%22');

    for (const website of ['http://x"onmouseover="alert(1)', 'http://x`y`.example/']) {
      const res = await server.post('/organizations.json', {
        token,
        body: { organization: { name: 'Hostile', website } },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({ errors: { website: ['is not a valid URL'] } });
    }
    expect(await organizationRows()).toEqual([
      {
        id: created.id,
        name: 'Owner',
        privacy_setting: 'private',
        website: 'https://owner.example.com/a%20b?q=%22%3Cx%3E%22',
        logo: null,
      },
    ]);
  });

  it('lists every broken field at once and creates nothing', async () => {
    const { token } = await server.createUser();
    const res = await server.post('/organizations.json', {
      token,
      body: {
        organization: { name: 'x'.repeat(101), privacy_setting: 'secret', website: 'ftp://acme.example' },
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      errors: {
        name: ['is too long (maximum is 100 characters)'],
        privacy_setting: ['must be one of public, private, restricted'],
        website: ['must be an http or https URL'],
      },
    });
    expect(await organizationRows()).toEqual([]);
    expect(await server.sql('select id from memberships')).toEqual([]);
  });

  it.each([
    ['a blank name', { organization: { name: '   ' } }, { name: ["can't be blank"] }],
    ['a missing name', { organization: {} }, { name: ["can't be blank"] }],
    ['a name of the wrong type', { organization: { name: 42 } }, { name: ['must be a string'] }],
    [
      'a privacy_setting of the wrong type',
      { organization: { name: 'A', privacy_setting: true } },
      { privacy_setting: ['must be one of public, private, restricted'] },
    ],
    ['a missing wrapper', { name: 'Acme' }, { organization: ['is missing'] }],
    ['a wrapper that is not an object', { organization: 'Acme' }, { organization: ['must be an object'] }],
  ])('refuses %s with 422', async (_label, body, errors) => {
    const { token } = await server.createUser();
    const res = await server.post('/organizations.json', { token, body });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors });
    expect(await organizationRows()).toEqual([]);
  });

  it('refuses a huge website or one of the wrong type with 422 on website', async () => {
    const { token } = await server.createUser();
    for (const website of [`https://acme.example/${'x'.repeat(100_000)}`, 42, ['https://a.example']]) {
      const res = await server.post('/organizations.json', {
        token,
        body: { organization: { name: 'A', website } },
      });
      expect(res.statusCode).toBe(422);
      // The message comes from the shared `websiteInput` schema (@app/schemas).
      expect(Object.keys(res.json().errors)).toEqual(['website']);
    }
    expect(await organizationRows()).toEqual([]);
  });

  it('answers 400 to a body that is not JSON', async () => {
    const { token } = await server.createUser();
    const res = await server.post('/organizations.json', { token, body: '{"organization": {' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: expect.any(String) });
    expect(await organizationRows()).toEqual([]);
  });

  it('answers 401 to a read token and to no token', async () => {
    const { token } = await server.createUser({ permission: 'read' });
    for (const t of [token, null]) {
      const res = await server.post('/organizations.json', {
        token: t,
        body: { organization: { name: 'A' } },
      });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Token realm="Application"');
    }
    expect(await organizationRows()).toEqual([]);
  });
});

describe('GET /organizations.json', () => {
  it("lists only the caller's organizations, oldest first", async () => {
    const alice = await server.createUser();
    const bob = await server.createUser();
    const first = await createOrganization(alice.token, { name: 'First' });
    await createOrganization(bob.token, { name: 'Bob only' });
    const joined = await createOrganization(bob.token, { name: 'Joined' });
    await addMember(joined.id, alice.user.id, 'member');
    const res = await server.get('/organizations.json', { token: alice.token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([first, joined]);
    expect(res.headers['total-count']).toBe('2');
    expect(res.headers.etag).toBeUndefined();
  });

  it('orders by created_at, then id, and pages by 20', async () => {
    const { token, user } = await server.createUser();
    for (let i = 0; i < 21; i++) await createOrganization(token, { name: `Org ${i}` });
    // Equal timestamps fall back to the id.
    await server.sql(
      "update organizations set created_at = '2026-01-01T00:00:00Z' where name in ('Org 3', 'Org 4')",
    );
    const expected = await server.sql<{ id: string }>(
      `select o.id from organizations o join memberships m on m.organization_id = o.id
       where m.user_id = ? order by o.created_at, o.id`,
      [user.id],
    );
    const page1 = await server.get('/organizations.json', { token });
    const page2 = await server.get('/organizations.json?page=2', { token });
    expect(page1.headers).toMatchObject({
      'current-page': '1',
      'page-items': '20',
      'total-count': '21',
      'total-pages': '2',
    });
    expect(page2.headers['current-page']).toBe('2');
    const ids = [...page1.json(), ...page2.json()].map((o: { id: string }) => o.id);
    expect(ids).toEqual(expected.map((r) => r.id));
    expect(
      page1
        .json()
        .slice(0, 2)
        .map((o: { name: string }) => o.name)
        .sort(),
    ).toEqual(['Org 3', 'Org 4']);
  });

  it('answers an empty page past the last, and 422 to a bad page', async () => {
    const { token } = await server.createUser();
    const past = await server.get('/organizations.json?page=3', { token });
    expect(past.statusCode).toBe(200);
    expect(past.json()).toEqual([]);
    expect(past.headers['total-pages']).toBe('1');
    const bad = await server.get('/organizations.json?page=0', { token });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual({ errors: { page: ['must be a positive integer'] } });
  });
});

describe('GET /organizations/:id.json', () => {
  it('shows the organization to a member, with an ETag', async () => {
    const owner = await server.createUser();
    const reader = await server.createUser({ permission: 'read' });
    const org = await createOrganization(owner.token);
    await addMember(org.id, reader.user.id, 'member');
    const res = await server.get(`/organizations/${org.id}.json`, { token: reader.token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(org);
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^W\/".+"$/);
    const again = await server.get(`/organizations/${org.id}.json`, {
      token: reader.token,
      headers: { 'if-none-match': etag },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
  });

  it('answers 404 to a non-member and to an unknown id', async () => {
    const owner = await server.createUser();
    const stranger = await server.createUser();
    const org = await createOrganization(owner.token);
    for (const [token, id] of [
      [stranger.token, org.id],
      [owner.token, 'unknown-org-id00'],
      [owner.token, 'x'.repeat(90)],
    ]) {
      const res = await server.get(`/organizations/${id}.json`, { token });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(NOT_FOUND);
    }
  });
});

describe('PATCH /organizations/:id.json', () => {
  it('lets an admin change the fields and answers 200 with the organization', async () => {
    const owner = await server.createUser();
    const admin = await server.createUser();
    const org = await createOrganization(owner.token, { name: 'Acme', website: 'https://a.example/' });
    await addMember(org.id, admin.user.id, 'admin');
    await server.sql("update organizations set updated_at = '2026-01-01T00:00:00Z'");
    const res = await server.patch(`/organizations/${org.id}.json`, {
      token: admin.token,
      body: { organization: { name: 'Acme 2', privacy_setting: 'restricted' } },
    });
    expect(res.statusCode).toBe(200);
    const updated = res.json();
    expect(updated).toEqual({
      ...org,
      name: 'Acme 2',
      privacy_setting: 'restricted',
      updated_at: expect.stringMatching(ISO),
    });
    expect(updated.updated_at).not.toBe('2026-01-01T00:00:00.000Z');
    expect(await organizationRows()).toEqual([
      {
        id: org.id,
        name: 'Acme 2',
        privacy_setting: 'restricted',
        website: 'https://a.example/',
        logo: null,
      },
    ]);
    const cleared = await server.patch(`/organizations/${org.id}.json`, {
      token: admin.token,
      body: { organization: { website: '' } },
    });
    expect(cleared.json().website).toBeNull();
    expect((await server.get(`/organizations/${org.id}.json`, { token: owner.token })).json()).toEqual(
      cleared.json(),
    );
  });

  it('refuses bad input with 422 and changes nothing', async () => {
    const owner = await server.createUser();
    const org = await createOrganization(owner.token);
    const before = await organizationRows();
    for (const [body, errors] of [
      [{ organization: { name: '' } }, { name: ["can't be blank"] }],
      [{ organization: { website: 'javascript:alert(1)' } }, { website: ['must be an http or https URL'] }],
      [{ organization: { purge_logo: 'yes' } }, { purge_logo: ['must be "1" or "0"'] }],
      [{}, { organization: ['is missing'] }],
    ] as const) {
      const res = await server.patch(`/organizations/${org.id}.json`, { token: owner.token, body });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({ errors });
    }
    expect(await organizationRows()).toEqual(before);
  });

  it('answers 403 to a member, 404 to a non-member and 401 to a read token', async () => {
    const owner = await server.createUser();
    const member = await server.createUser();
    const stranger = await server.createUser();
    const reader = await server.createUser({ permission: 'read' });
    const org = await createOrganization(owner.token);
    await addMember(org.id, member.user.id, 'member');
    await server.sql(
      'insert into memberships (id, organization_id, user_id, role, is_owner, created_at, updated_at) values (?, ?, ?, ?, false, now(), now())',
      ['readeradmin00000', org.id, reader.user.id, 'admin'],
    );
    const body = { organization: { name: 'Hijacked' } };
    const asMember = await server.patch(`/organizations/${org.id}.json`, { token: member.token, body });
    expect(asMember.statusCode).toBe(403);
    expect(asMember.json()).toEqual(FORBIDDEN);
    const asStranger = await server.patch(`/organizations/${org.id}.json`, { token: stranger.token, body });
    expect(asStranger.statusCode).toBe(404);
    expect(asStranger.json()).toEqual(NOT_FOUND);
    const asReader = await server.patch(`/organizations/${org.id}.json`, { token: reader.token, body });
    expect(asReader.statusCode).toBe(401);
    expect(await server.sql('select name from organizations')).toEqual([{ name: 'Acme' }]);
  });
});

describe('DELETE /organizations/:id.json', () => {
  it('lets the owner delete it with its memberships; a second DELETE is 404', async () => {
    const owner = await server.createUser();
    const member = await server.createUser();
    const org = await createOrganization(owner.token);
    const other = await createOrganization(owner.token, { name: 'Other' });
    await addMember(org.id, member.user.id, 'member');
    await server.post(`/test_helpers/organizations/${org.id}/join_requests.json`, {
      token: TEST_HELPERS_KEY,
      body: { join_request: { user_id: (await server.createUser()).user.id } },
    });
    const res = await server.delete(`/organizations/${org.id}.json`, { token: owner.token });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await server.sql('select id from organizations')).toEqual([{ id: other.id }]);
    expect(await server.sql('select organization_id from memberships')).toEqual([
      { organization_id: other.id },
    ]);
    expect(await server.sql('select id from join_requests')).toEqual([]);
    const again = await server.delete(`/organizations/${org.id}.json`, { token: owner.token });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual(NOT_FOUND);
    expect((await server.get(`/organizations/${org.id}.json`, { token: member.token })).statusCode).toBe(404);
  });

  it('answers 403 to another admin and to a member, 404 to a non-member', async () => {
    const owner = await server.createUser();
    const admin = await server.createUser();
    const member = await server.createUser();
    const stranger = await server.createUser();
    const org = await createOrganization(owner.token);
    await addMember(org.id, admin.user.id, 'admin');
    await addMember(org.id, member.user.id, 'member');
    for (const [who, status] of [
      [admin, 403],
      [member, 403],
      [stranger, 404],
    ] as const) {
      const res = await server.delete(`/organizations/${org.id}.json`, { token: who.token });
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual(status === 403 ? FORBIDDEN : NOT_FOUND);
    }
    expect(await server.sql('select id from organizations')).toEqual([{ id: org.id }]);
    expect(await server.sql('select id from memberships')).toHaveLength(3);
  });

  it('refuses with 422 while a subscription is active or collabs or campaigns remain', async () => {
    const owner = await server.createUser();
    const org = await createOrganization(owner.token);
    const subscription = await setSubscription(org.id, { active: true });
    expect(subscription.json()).toEqual({ active: true });
    await server.sql(
      `insert into collabs (id, organization_id, name, brief, created_at, updated_at)
       values ('collab0000000001', ?, 'C', '', now(), now())`,
      [org.id],
    );
    await server.sql(
      `insert into campaigns (id, organization_id, name, brief, created_at, updated_at)
       values ('campaign00000001', ?, 'C', '', now(), now())`,
      [org.id],
    );
    const attempt = () => server.delete(`/organizations/${org.id}.json`, { token: owner.token });

    let res = await attempt();
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      errors: {
        base: [
          'Cannot delete an organization with an active subscription',
          'Cannot delete an organization that still has collabs',
          'Cannot delete an organization that still has campaigns',
        ],
      },
    });
    await setSubscription(org.id, { active: false });
    await server.sql('delete from collabs');
    res = await attempt();
    expect(res.json()).toEqual({
      errors: { base: ['Cannot delete an organization that still has campaigns'] },
    });
    await server.sql('delete from campaigns');
    await server.sql(
      `insert into collabs (id, organization_id, name, brief, created_at, updated_at)
       values ('collab0000000002', ?, 'C', '', now(), now())`,
      [org.id],
    );
    res = await attempt();
    expect(res.json()).toEqual({
      errors: { base: ['Cannot delete an organization that still has collabs'] },
    });
    expect(await server.sql('select id from organizations')).toEqual([{ id: org.id }]);
    expect(await server.sql('select id from memberships')).toHaveLength(1);

    await server.sql('delete from collabs');
    expect((await attempt()).statusCode).toBe(204);
  });

  it('answers 401 to a read token', async () => {
    const owner = await server.createUser();
    const org = await createOrganization(owner.token);
    await server.sql("update access_tokens set permission = 'read'");
    expect((await server.delete(`/organizations/${org.id}.json`, { token: owner.token })).statusCode).toBe(
      401,
    );
    expect(await server.sql('select id from organizations')).toEqual([{ id: org.id }]);
  });
});

describe('POST /test_helpers/organizations/:id/subscription.json', () => {
  it('sets the subscription flag', async () => {
    const owner = await server.createUser();
    const org = await createOrganization(owner.token);
    const res = await setSubscription(org.id, { active: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ active: true });
    expect(await server.sql('select subscription_active from organizations')).toEqual([
      { subscription_active: true },
    ]);
  });

  it('answers 404 to an unknown organization and 422 to a bad body', async () => {
    const unknown = await setSubscription('nope', { active: true });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual(NOT_FOUND);
    const owner = await server.createUser();
    const org = await createOrganization(owner.token);
    const bad = await setSubscription(org.id, { active: 'yes' });
    expect(bad.statusCode).toBe(422);
    expect(Object.keys(bad.json().errors)).toEqual(['active']);
    expect(await server.sql('select subscription_active from organizations')).toEqual([
      { subscription_active: false },
    ]);
  });

  it('answers 401 without the key or with a user token', async () => {
    const owner = await server.createUser();
    const org = await createOrganization(owner.token);
    for (const token of [null, owner.token, `${TEST_HELPERS_KEY}x`]) {
      const res = await setSubscription(org.id, { active: true }, token);
      expect(res.statusCode).toBe(401);
    }
    expect(await server.sql('select subscription_active from organizations')).toEqual([
      { subscription_active: false },
    ]);
  });
});
