import { describe, expect, it } from 'vitest';
import {
  addMember,
  createOrganization,
  type Membership,
  membershipRows,
  ownerMembershipId,
} from '../../../test/fixtures/members.js';
import { FORBIDDEN, ISO, NOT_FOUND } from '../../../test/fixtures/responses.js';
import { useTestServer } from '../../../test/harness.js';

const server = useTestServer();

const membersUrl = (orgId: string) => `/organizations/${orgId}/members.json`;
const memberUrl = (orgId: string, id: string) => `/organizations/${orgId}/members/${id}.json`;

describe('GET /organizations/:organization_id/members.json', () => {
  it('lists admins first, then oldest first, each with its user', async () => {
    const owner = await server.createUser({ name: 'Owner' });
    const org = await createOrganization(server, owner);
    const m1 = await server.createUser({ name: 'Member one' });
    const admin = await server.createUser({ name: 'Admin' });
    const m2 = await server.createUser({ name: 'Member two' });
    const first = await addMember(server, org.id, m1);
    const adminMembership = await addMember(server, org.id, admin, 'admin');
    const second = await addMember(server, org.id, m2);
    // m2 joined earlier than m1 after all: the order follows created_at, not insertion.
    await server.sql("update memberships set created_at = '2020-01-01T00:00:00Z' where id = ?", [second.id]);

    const res = await server.get(membersUrl(org.id), { token: m1.token });
    expect(res.statusCode).toBe(200);
    const list: Membership[] = res.json();
    expect(list.map((m) => m.user.name)).toEqual(['Owner', 'Admin', 'Member two', 'Member one']);
    expect(list[0]).toEqual({
      id: await ownerMembershipId(server, org.id),
      role: 'admin',
      is_owner: true,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      user: owner.user,
    });
    expect(list[1]).toEqual(adminMembership);
    expect(list[3]).toEqual(first);
    expect(res.headers).toMatchObject({ 'total-count': '4', 'total-pages': '1', 'current-page': '1' });
    expect(res.headers.etag).toBeUndefined();
  });

  it('breaks ties on created_at by id and pages by 20', async () => {
    const owner = await server.createUser();
    const org = await createOrganization(server, owner);
    for (let i = 0; i < 21; i++) await addMember(server, org.id, await server.createUser());
    await server.sql("update memberships set created_at = '2020-01-01T00:00:00Z' where not is_owner");
    const expected = await server.sql<{ id: string }>(
      "select id from memberships where organization_id = ? order by role = 'admin' desc, created_at, id",
      [org.id],
    );
    const page1 = await server.get(membersUrl(org.id), { token: owner.token });
    const page2 = await server.get(`${membersUrl(org.id)}?page=2`, { token: owner.token });
    expect(page1.headers).toMatchObject({ 'total-count': '22', 'total-pages': '2', 'page-items': '20' });
    expect(page1.json()).toHaveLength(20);
    expect([...page1.json(), ...page2.json()].map((m: Membership) => m.id)).toEqual(
      expected.map((r) => r.id),
    );
  });

  it('answers 404 to a non-member and to an unknown organization, 422 to a bad page', async () => {
    const owner = await server.createUser();
    const stranger = await server.createUser();
    const org = await createOrganization(server, owner);
    for (const [token, id] of [
      [stranger.token, org.id],
      [owner.token, 'no-such-org'],
    ] as const) {
      const res = await server.get(membersUrl(id), { token });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(NOT_FOUND);
    }
    const bad = await server.get(`${membersUrl(org.id)}?page=abc`, { token: owner.token });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual({ errors: { page: ['must be a positive integer'] } });
  });

  it('works with a read token', async () => {
    const owner = await server.createUser();
    const reader = await server.createUser({ permission: 'read' });
    const org = await createOrganization(server, owner);
    await addMember(server, org.id, reader);
    expect((await server.get(membersUrl(org.id), { token: reader.token })).statusCode).toBe(200);
  });
});

describe('PATCH /organizations/:organization_id/members/:id.json', () => {
  it('lets an admin promote a member and demote an admin, answering 200 with the membership', async () => {
    const owner = await server.createUser();
    const org = await createOrganization(server, owner);
    const member = await addMember(server, org.id, await server.createUser());
    await server.sql("update memberships set updated_at = '2020-01-01T00:00:00Z'");

    const promoted = await server.patch(memberUrl(org.id, member.id), {
      token: owner.token,
      body: { membership: { role: 'admin' } },
    });
    expect(promoted.statusCode).toBe(200);
    expect(promoted.json()).toEqual({ ...member, role: 'admin', updated_at: expect.stringMatching(ISO) });
    expect(promoted.json().updated_at).not.toBe('2020-01-01T00:00:00.000Z');
    expect((await membershipRows(server, org.id)).find((r) => r.id === member.id)?.role).toBe('admin');

    const demoted = await server.patch(memberUrl(org.id, member.id), {
      token: owner.token,
      body: { membership: { role: 'member' } },
    });
    expect(demoted.statusCode).toBe(200);
    expect(demoted.json().role).toBe('member');
    expect((await membershipRows(server, org.id)).find((r) => r.id === member.id)?.role).toBe('member');
  });

  it('refuses to demote the owner with 422 on role, even when asked by another admin', async () => {
    const owner = await server.createUser();
    const admin = await server.createUser();
    const org = await createOrganization(server, owner);
    await addMember(server, org.id, admin, 'admin');
    const ownerId = await ownerMembershipId(server, org.id);
    for (const who of [owner, admin]) {
      const res = await server.patch(memberUrl(org.id, ownerId), {
        token: who.token,
        body: { membership: { role: 'member' } },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({ errors: { role: ['cannot be changed for the organization owner'] } });
    }
    expect((await membershipRows(server, org.id)).find((r) => r.id === ownerId)).toMatchObject({
      role: 'admin',
      is_owner: true,
    });
    // Confirming the owner's role as admin changes nothing and is allowed.
    const same = await server.patch(memberUrl(org.id, ownerId), {
      token: admin.token,
      body: { membership: { role: 'admin' } },
    });
    expect(same.statusCode).toBe(200);
  });

  it('refuses to demote the only remaining admin with 422 on role', async () => {
    const owner = await server.createUser();
    const org = await createOrganization(server, owner);
    await addMember(server, org.id, await server.createUser());
    // An organization whose owner flag was lost: the only-admin guard is all that protects it.
    await server.sql('update memberships set is_owner = false');
    const ownerId = (await membershipRows(server, org.id)).find((r) => r.user_id === owner.user.id)
      ?.id as string;
    const res = await server.patch(memberUrl(org.id, ownerId), {
      token: owner.token,
      body: { membership: { role: 'member' } },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { role: ['cannot be changed for the only remaining admin'] } });
    expect((await membershipRows(server, org.id)).find((r) => r.id === ownerId)?.role).toBe('admin');
  });

  it('answers 403 to a member (even on their own membership), 404 to a non-member, 401 to a read token', async () => {
    const owner = await server.createUser();
    const memberUser = await server.createUser();
    const stranger = await server.createUser();
    const org = await createOrganization(server, owner);
    const member = await addMember(server, org.id, memberUser);
    const body = { membership: { role: 'admin' } };
    for (const [token, status, expected] of [
      [memberUser.token, 403, FORBIDDEN],
      [stranger.token, 404, NOT_FOUND],
    ] as const) {
      const res = await server.patch(memberUrl(org.id, member.id), { token, body });
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual(expected);
    }
    await server.sql("update access_tokens set permission = 'read' where user_id = ?", [owner.user.id]);
    expect((await server.patch(memberUrl(org.id, member.id), { token: owner.token, body })).statusCode).toBe(
      401,
    );
    expect((await membershipRows(server, org.id)).find((r) => r.id === member.id)?.role).toBe('member');
  });

  it("answers 404 to an unknown membership and to another organization's membership", async () => {
    const owner = await server.createUser();
    const org = await createOrganization(server, owner);
    const otherOwner = await server.createUser();
    const other = await createOrganization(server, otherOwner, 'Other');
    const foreign = await addMember(server, other.id, await server.createUser());
    for (const id of ['no-such-member', foreign.id, await ownerMembershipId(server, other.id)]) {
      const res = await server.patch(memberUrl(org.id, id), {
        token: owner.token,
        body: { membership: { role: 'admin' } },
      });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(NOT_FOUND);
    }
    expect((await membershipRows(server, other.id)).find((r) => r.id === foreign.id)?.role).toBe('member');
  });

  it.each([
    ['an unknown role', { membership: { role: 'owner' } }, { role: ['must be one of member, admin'] }],
    ['a missing role', { membership: {} }, { role: ["can't be blank"] }],
    ['a role of the wrong type', { membership: { role: 1 } }, { role: ['must be one of member, admin'] }],
    ['a missing wrapper', { role: 'admin' }, { membership: ['is missing'] }],
  ])('refuses %s with 422 and changes nothing', async (_label, body, errors) => {
    const owner = await server.createUser();
    const org = await createOrganization(server, owner);
    const member = await addMember(server, org.id, await server.createUser());
    const before = await membershipRows(server, org.id);
    const res = await server.patch(memberUrl(org.id, member.id), { token: owner.token, body });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors });
    expect(await membershipRows(server, org.id)).toEqual(before);
  });

  it('answers 400 to a body that is not JSON', async () => {
    const owner = await server.createUser();
    const org = await createOrganization(server, owner);
    const member = await addMember(server, org.id, await server.createUser());
    const res = await server.patch(memberUrl(org.id, member.id), {
      token: owner.token,
      body: '{"membership":',
    });
    expect(res.statusCode).toBe(400);
  });
});

describe('DELETE /organizations/:organization_id/members/:id.json', () => {
  it('lets an admin remove a member; a second DELETE is 404', async () => {
    const owner = await server.createUser();
    const admin = await server.createUser();
    const memberUser = await server.createUser();
    const org = await createOrganization(server, owner);
    await addMember(server, org.id, admin, 'admin');
    const member = await addMember(server, org.id, memberUser);
    const res = await server.delete(memberUrl(org.id, member.id), { token: admin.token });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await membershipRows(server, org.id)).map((r) => r.user_id).sort()).toEqual(
      [owner.user.id, admin.user.id].sort(),
    );
    const again = await server.delete(memberUrl(org.id, member.id), { token: admin.token });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual(NOT_FOUND);
    expect((await server.get(`/organizations/${org.id}.json`, { token: memberUser.token })).statusCode).toBe(
      404,
    );
  });

  it('lets an admin remove another (non-owner) admin', async () => {
    const owner = await server.createUser();
    const org = await createOrganization(server, owner);
    const admin = await addMember(server, org.id, await server.createUser(), 'admin');
    expect((await server.delete(memberUrl(org.id, admin.id), { token: owner.token })).statusCode).toBe(204);
    expect(await membershipRows(server, org.id)).toHaveLength(1);
  });

  it('lets a member leave: their organization disappears from their list', async () => {
    const owner = await server.createUser();
    const memberUser = await server.createUser();
    const org = await createOrganization(server, owner);
    const member = await addMember(server, org.id, memberUser);
    const res = await server.delete(memberUrl(org.id, member.id), { token: memberUser.token });
    expect(res.statusCode).toBe(204);
    expect(await membershipRows(server, org.id)).toHaveLength(1);
    expect((await server.get('/organizations.json', { token: memberUser.token })).json()).toEqual([]);
    const again = await server.delete(memberUrl(org.id, member.id), { token: memberUser.token });
    expect(again.statusCode).toBe(404);
  });

  it('answers 403 to a member removing anyone else', async () => {
    const owner = await server.createUser();
    const memberUser = await server.createUser();
    const org = await createOrganization(server, owner);
    await addMember(server, org.id, memberUser);
    const other = await addMember(server, org.id, await server.createUser());
    const admin = await addMember(server, org.id, await server.createUser(), 'admin');
    for (const id of [other.id, admin.id, await ownerMembershipId(server, org.id)]) {
      const res = await server.delete(memberUrl(org.id, id), { token: memberUser.token });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual(FORBIDDEN);
    }
    expect(await membershipRows(server, org.id)).toHaveLength(4);
  });

  it('refuses to remove the owner with 422 on base, also when the owner leaves', async () => {
    const owner = await server.createUser();
    const admin = await server.createUser();
    const org = await createOrganization(server, owner);
    await addMember(server, org.id, admin, 'admin');
    const ownerId = await ownerMembershipId(server, org.id);
    for (const who of [admin, owner]) {
      const res = await server.delete(memberUrl(org.id, ownerId), { token: who.token });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({ errors: { base: ['The organization owner cannot be removed'] } });
    }
    expect(await membershipRows(server, org.id)).toHaveLength(2);
  });

  it('refuses to remove the sole member, listing every guard that applies', async () => {
    const owner = await server.createUser();
    const org = await createOrganization(server, owner);
    const ownerId = await ownerMembershipId(server, org.id);
    const res = await server.delete(memberUrl(org.id, ownerId), { token: owner.token });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      errors: {
        base: [
          'The organization owner cannot be removed',
          'The only member of an organization cannot be removed',
          'The only remaining admin cannot be removed',
        ],
      },
    });
    // Without the owner flag, the sole-member guard still holds.
    await server.sql('update memberships set is_owner = false');
    const again = await server.delete(memberUrl(org.id, ownerId), { token: owner.token });
    expect(again.json()).toEqual({
      errors: {
        base: [
          'The only member of an organization cannot be removed',
          'The only remaining admin cannot be removed',
        ],
      },
    });
    expect(await membershipRows(server, org.id)).toHaveLength(1);
  });

  it('refuses to remove the only remaining admin with 422 on base', async () => {
    const owner = await server.createUser();
    const org = await createOrganization(server, owner);
    await addMember(server, org.id, await server.createUser());
    await server.sql('update memberships set is_owner = false');
    const adminId = (await membershipRows(server, org.id)).find((r) => r.user_id === owner.user.id)
      ?.id as string;
    const res = await server.delete(memberUrl(org.id, adminId), { token: owner.token });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { base: ['The only remaining admin cannot be removed'] } });
    expect(await membershipRows(server, org.id)).toHaveLength(2);
  });

  it("answers 404 to a non-member, an unknown id and another organization's membership", async () => {
    const owner = await server.createUser();
    const stranger = await server.createUser();
    const org = await createOrganization(server, owner);
    const member = await addMember(server, org.id, await server.createUser());
    const other = await createOrganization(server, await server.createUser(), 'Other');
    const foreign = await addMember(server, other.id, await server.createUser());
    for (const [token, id] of [
      [stranger.token, member.id],
      [owner.token, 'no-such-member'],
      [owner.token, foreign.id],
    ] as const) {
      const res = await server.delete(memberUrl(org.id, id), { token });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(NOT_FOUND);
    }
    expect(await membershipRows(server, org.id)).toHaveLength(2);
    expect(await membershipRows(server, other.id)).toHaveLength(2);
  });

  it('answers 401 to a read token, even for leaving', async () => {
    const owner = await server.createUser();
    const reader = await server.createUser({ permission: 'read' });
    const org = await createOrganization(server, owner);
    const member = await addMember(server, org.id, reader);
    const res = await server.delete(memberUrl(org.id, member.id), { token: reader.token });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Token realm="Application"');
    expect(await membershipRows(server, org.id)).toHaveLength(2);
  });
});
