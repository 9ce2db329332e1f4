/** Set-up shared by this module's test files (not part of the server). */
import { expect } from 'vitest';
import { TEST_HELPERS_KEY, type TestServer, type TestUser } from '../../../test/harness.js';

export const FORBIDDEN = { error: 'You are not allowed to perform this action' };
export const NOT_FOUND = { error: 'Not found' };
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export interface Membership {
  id: string;
  role: 'member' | 'admin';
  is_owner: boolean;
  created_at: string;
  updated_at: string;
  user: { id: string; name: string; email: string };
}

export async function createOrganization(server: TestServer, owner: TestUser, name = 'Acme') {
  const res = await server.post('/organizations.json', {
    token: owner.token,
    body: { organization: { name } },
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string; name: string };
}

export async function addMember(
  server: TestServer,
  organizationId: string,
  user: TestUser,
  role: 'member' | 'admin' = 'member',
): Promise<Membership> {
  const res = await server.post(`/test_helpers/organizations/${organizationId}/members.json`, {
    token: TEST_HELPERS_KEY,
    body: { membership: { user_id: user.user.id, role } },
  });
  expect(res.statusCode).toBe(201);
  return res.json();
}

/** The owner's membership id, read from the database. */
export async function ownerMembershipId(server: TestServer, organizationId: string): Promise<string> {
  const [row] = await server.sql<{ id: string }>(
    'select id from memberships where organization_id = ? and is_owner',
    [organizationId],
  );
  return row?.id as string;
}

/** What is stored for an organization's memberships: user, role, owner flag. */
export const membershipRows = (server: TestServer, organizationId: string) =>
  server.sql<{ id: string; user_id: string; role: string; is_owner: boolean }>(
    'select id, user_id, role, is_owner from memberships where organization_id = ? order by id',
    [organizationId],
  );
