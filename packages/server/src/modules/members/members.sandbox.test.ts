import { describe, expect, it } from 'vitest';
import { addMember, createOrganization, membershipRows } from '../../../test/fixtures/members.js';
import { ISO, NOT_FOUND } from '../../../test/fixtures/responses.js';
import { TEST_HELPERS_KEY, useTestServer } from '../../../test/harness.js';

const server = useTestServer();

const membersHelper = (orgId: string) => `/test_helpers/organizations/${orgId}/members.json`;
/** Adds a membership through the test helper, with the sandbox key unless another token is given. */
const addMembership = (orgId: string, membership: unknown, token: string | null = TEST_HELPERS_KEY) =>
  server.post(membersHelper(orgId), { token, body: { membership } });
const joinRequestsHelper = (orgId: string) => `/test_helpers/organizations/${orgId}/join_requests.json`;

describe('POST /test_helpers/organizations/:organization_id/members.json', () => {
  it('adds a user with a role and answers 201 with the membership', async () => {
    const owner = await server.createUser();
    const user = await server.createUser();
    const org = await createOrganization(server, owner);
    const res = await addMembership(org.id, { user_id: user.user.id, role: 'admin' });
    expect(res.statusCode).toBe(201);
    const membership = res.json();
    expect(membership).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
      role: 'admin',
      is_owner: false,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      user: user.user,
    });
    expect((await membershipRows(server, org.id)).find((r) => r.id === membership.id)).toEqual({
      id: membership.id,
      user_id: user.user.id,
      role: 'admin',
      is_owner: false,
    });
    // The new member sees the organization.
    expect((await server.get(`/organizations/${org.id}.json`, { token: user.token })).statusCode).toBe(200);
  });

  it('answers 422 when the user is already a member, also when added twice at once', async () => {
    const owner = await server.createUser();
    const user = await server.createUser();
    const org = await createOrganization(server, owner);
    const add = () => addMembership(org.id, { user_id: user.user.id, role: 'member' });
    const responses = await Promise.all([add(), add(), add()]);
    expect(responses.map((r) => r.statusCode).sort()).toEqual([201, 422, 422]);
    const refused = responses.find((r) => r.statusCode === 422);
    expect(refused?.json()).toEqual({ errors: { user_id: ['is already a member of this organization'] } });
    const owners = await addMembership(org.id, { user_id: owner.user.id, role: 'member' });
    expect(owners.statusCode).toBe(422);
    expect(await membershipRows(server, org.id)).toHaveLength(2);
  });

  it('answers 404 to an unknown organization or user', async () => {
    const owner = await server.createUser();
    const org = await createOrganization(server, owner);
    for (const [orgId, userId] of [
      ['no-such-org0000', owner.user.id],
      [org.id, 'no-such-user0000'],
      [org.id, 'x'.repeat(64)],
      ['y'.repeat(64), owner.user.id],
    ]) {
      const res = await addMembership(orgId as string, { user_id: userId, role: 'member' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(NOT_FOUND);
    }
    expect(await server.sql('select id from memberships')).toHaveLength(1);
  });

  it('answers 422 to a bad body', async () => {
    const owner = await server.createUser();
    const org = await createOrganization(server, owner);
    const res = await addMembership(org.id, { user_id: owner.user.id, role: 'boss' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { role: ['must be one of member, admin'] } });
    const missing = await server.post(membersHelper(org.id), { token: TEST_HELPERS_KEY, body: {} });
    expect(missing.json()).toEqual({ errors: { membership: ['is missing'] } });
  });

  it('answers 401 without the key, with a wrong key or with a user token', async () => {
    const owner = await server.createUser();
    const user = await server.createUser();
    const org = await createOrganization(server, owner);
    for (const token of [null, 'wrong-key-0123456789abc', owner.token]) {
      const res = await addMembership(org.id, { user_id: user.user.id, role: 'admin' }, token);
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Token realm="Application"');
    }
    expect(await membershipRows(server, org.id)).toHaveLength(1);
  });
});

describe('POST /test_helpers/organizations/:organization_id/join_requests.json', () => {
  it('records the request and notifies every admin', async () => {
    const owner = await server.createUser({ name: 'Olive Owner' });
    const admin = await server.createUser();
    const member = await server.createUser();
    const requester = await server.createUser({ name: 'Rita Requester' });
    const org = await createOrganization(server, owner, 'Acme Studio');
    await addMember(server, org.id, admin, 'admin');
    await addMember(server, org.id, member);

    const res = await server.post(joinRequestsHelper(org.id), {
      token: TEST_HELPERS_KEY,
      body: { join_request: { user_id: requester.user.id } },
    });
    expect(res.statusCode).toBe(201);
    const joinRequest = res.json();
    expect(joinRequest).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
      user_id: requester.user.id,
      organization_id: org.id,
      created_at: expect.stringMatching(ISO),
    });
    expect(await server.sql('select id, organization_id, user_id from join_requests')).toEqual([
      { id: joinRequest.id, organization_id: org.id, user_id: requester.user.id },
    ]);

    const notifications = await server.sql<{ recipient_id: string }>(
      'select recipient_id, type, params, record_type, record_id from notifications order by recipient_id',
    );
    expect(notifications).toEqual(
      [owner, admin]
        .map((u) => u.user.id)
        .sort()
        .map((recipient) => ({
          recipient_id: recipient,
          type: 'Membership::JoinRequestReceivedNotifier',
          params: { user_name: 'Rita Requester', organization_name: 'Acme Studio' },
          record_type: 'Membership::JoinRequest',
          record_id: joinRequest.id,
        })),
    );
    // The requester is not a member yet.
    expect((await server.get(`/organizations/${org.id}.json`, { token: requester.token })).statusCode).toBe(
      404,
    );
  });

  it('answers 404 to an unknown organization or user, creating and sending nothing', async () => {
    const owner = await server.createUser();
    const org = await createOrganization(server, owner);
    const user = await server.createUser();
    for (const [orgId, userId] of [
      ['no-such-org0000', user.user.id],
      [org.id, 'no-such-user0000'],
      [org.id, 'z'.repeat(64)],
    ]) {
      const res = await server.post(joinRequestsHelper(orgId as string), {
        token: TEST_HELPERS_KEY,
        body: { join_request: { user_id: userId } },
      });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(NOT_FOUND);
    }
    expect(await server.sql('select id from join_requests')).toEqual([]);
    expect(await server.sql('select id from notifications')).toEqual([]);
  });

  it('answers 422 when the user is already a member', async () => {
    const owner = await server.createUser();
    const org = await createOrganization(server, owner);
    const res = await server.post(joinRequestsHelper(org.id), {
      token: TEST_HELPERS_KEY,
      body: { join_request: { user_id: owner.user.id } },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { user_id: ['is already a member of this organization'] } });
    expect(await server.sql('select id from join_requests')).toEqual([]);
    expect(await server.sql('select id from notifications')).toEqual([]);
  });

  it('answers 401 without the key', async () => {
    const owner = await server.createUser();
    const org = await createOrganization(server, owner);
    const user = await server.createUser();
    for (const token of [null, owner.token]) {
      const res = await server.post(joinRequestsHelper(org.id), {
        token,
        body: { join_request: { user_id: user.user.id } },
      });
      expect(res.statusCode).toBe(401);
    }
    expect(await server.sql('select id from join_requests')).toEqual([]);
  });
});
