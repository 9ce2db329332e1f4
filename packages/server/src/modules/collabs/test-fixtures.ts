/*
 * Set-up shared by the collab and campaign tests: organizations with members of each role,
 * written straight to the database so these tests do not depend on other modules' endpoints.
 */
import { randomBytes } from 'node:crypto';
import { TEST_HELPERS_KEY, type TestServer, type TestUser } from '../../../test/harness.js';

export interface OrganizationFixture {
  id: string;
  /** Admin and owner, write token. */
  admin: TestUser;
  /** Admin with a read token: 401 on every write. */
  readAdmin: TestUser;
  member: TestUser;
  /** A user of another organization: 404 here. */
  outsider: TestUser;
}

const newId = () => randomBytes(12).toString('base64url');

export async function insertOrganization(
  server: TestServer,
  members: Array<{ user: TestUser; role: 'admin' | 'member'; owner?: boolean }>,
): Promise<string> {
  const id = newId();
  await server.sql(
    `insert into organizations (id, name, privacy_setting, subscription_active, created_at, updated_at)
     values (?, ?, 'private', false, now(), now())`,
    [id, `Org ${id}`],
  );
  for (const m of members) {
    await server.sql(
      `insert into memberships (id, organization_id, user_id, role, is_owner, created_at, updated_at)
       values (?, ?, ?, ?, ?, now(), now())`,
      [newId(), id, m.user.user.id, m.role, m.owner === true],
    );
  }
  return id;
}

export async function setUpOrganization(server: TestServer): Promise<OrganizationFixture> {
  const admin = await server.createUser({ name: 'Admin' });
  const readAdmin = await server.createUser({ name: 'Read admin', permission: 'read' });
  const member = await server.createUser({ name: 'Member' });
  const outsider = await server.createUser({ name: 'Outsider' });
  const id = await insertOrganization(server, [
    { user: admin, role: 'admin', owner: true },
    { user: readAdmin, role: 'admin' },
    { user: member, role: 'member' },
  ]);
  await insertOrganization(server, [{ user: outsider, role: 'admin', owner: true }]);
  return { id, admin, readAdmin, member, outsider };
}

/** Options of a test-helper request (the sandbox key instead of a user token). */
export const helperAuth = { headers: { authorization: `Bearer ${TEST_HELPERS_KEY}` } };

/** Smallest valid images of each accepted type, and a file that only claims to be one. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
export const GIF = Buffer.from('R0lGODlhAQABAAAAACw=', 'base64');
export const NOT_AN_IMAGE = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
);

export const fileOf = (data: Buffer, name: string, type: string) =>
  new File([new Uint8Array(data)], name, { type });
