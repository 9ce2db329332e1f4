/**
 * The membership guards under concurrency: demotions and removals racing each other must never
 * leave an organization without an admin, nor touch its owner.
 */
import { describe, expect, it } from 'vitest';
import {
  addMember,
  createOrganization,
  membershipRows,
  ownerMembershipId,
} from '../../../test/fixtures/members.js';
import { type TestUser, useTestServer } from '../../../test/harness.js';

const server = useTestServer();

const memberUrl = (orgId: string, id: string) => `/organizations/${orgId}/members/${id}.json`;
const demote = (orgId: string, id: string, by: TestUser) =>
  server.patch(memberUrl(orgId, id), { token: by.token, body: { membership: { role: 'member' } } });
const remove = (orgId: string, id: string, by: TestUser) =>
  server.delete(memberUrl(orgId, id), { token: by.token });

describe('membership guards under concurrent requests', () => {
  it('keep the owner and at least one admin when 24 demotions and removals race', async () => {
    const owner = await server.createUser();
    const adminUser = await server.createUser();
    const org = await createOrganization(server, owner);
    const admin = await addMember(server, org.id, adminUser, 'admin');
    const memberUsers = [await server.createUser(), await server.createUser(), await server.createUser()];
    const members = [];
    for (const user of memberUsers) members.push(await addMember(server, org.id, user));
    const ownerId = await ownerMembershipId(server, org.id);
    // Tokens used once already, as in a running client: no request of the race is held back by
    // the first-use touch of its token (a second statement) while the others go ahead.
    await server.get('/organizations.json', { token: adminUser.token });

    const requests = [];
    for (let i = 0; i < 4; i++) {
      requests.push(
        demote(org.id, ownerId, adminUser),
        remove(org.id, ownerId, adminUser),
        demote(org.id, admin.id, owner),
        remove(org.id, admin.id, owner),
        remove(org.id, admin.id, adminUser),
        // The owner stays an admin whatever else wins, so this attempt always meets the owner
        // guard inside the race: a 422 every time (the other attempts on the owner may be
        // answered 403/404 instead, when the other admin's demotion or removal came first).
        demote(org.id, ownerId, owner),
      );
    }
    const responses = await Promise.all(requests);
    expect(responses).toHaveLength(24);
    for (const res of responses) expect([200, 204, 403, 404, 422]).toContain(res.statusCode);
    // No attempt on the owner succeeds: a guard's 422, or 403/404 once the other admin is demoted or gone.
    for (const res of responses.filter((_, i) => i % 6 < 2))
      expect([403, 404, 422]).toContain(res.statusCode);
    for (const res of responses.filter((_, i) => i % 6 === 5)) expect(res.statusCode).toBe(422);

    const rows = await membershipRows(server, org.id);
    expect(rows.find((r) => r.id === ownerId)).toEqual({
      id: ownerId,
      user_id: owner.user.id,
      role: 'admin',
      is_owner: true,
    });
    expect(rows.filter((r) => r.role === 'admin').length).toBeGreaterThanOrEqual(1);
    expect(rows.filter((r) => r.is_owner)).toHaveLength(1);
    // The members were not involved.
    for (const member of members) expect(rows.find((r) => r.id === member.id)?.role).toBe('member');
  });

  it('keep exactly one admin when two admins (no owner) race to demote and remove each other', async () => {
    const a = await server.createUser();
    const b = await server.createUser();
    const org = await createOrganization(server, a);
    const bMembership = await addMember(server, org.id, b, 'admin');
    await addMember(server, org.id, await server.createUser());
    const aId = await ownerMembershipId(server, org.id);
    // Without an owner, only the counted-admins guard stands between them and an admin-less org.
    await server.sql('update memberships set is_owner = false where organization_id = ?', [org.id]);

    const requests = [];
    for (let i = 0; i < 5; i++) {
      requests.push(
        demote(org.id, bMembership.id, a),
        remove(org.id, aId, b),
        demote(org.id, aId, b),
        remove(org.id, bMembership.id, b),
      );
    }
    const responses = await Promise.all(requests);
    for (const res of responses) expect([200, 204, 403, 404, 422]).toContain(res.statusCode);
    // Every one of these changes takes one admin away, so the first one to run succeeds; after it the
    // remaining admin is the only one, and no later change may take it away (a 422, or a 404 when
    // the one who left was the caller or the target).
    expect(responses.some((r) => r.statusCode === 200 || r.statusCode === 204)).toBe(true);
    const admins = (await membershipRows(server, org.id)).filter((r) => r.role === 'admin');
    expect(admins).toHaveLength(1);
  });
});
