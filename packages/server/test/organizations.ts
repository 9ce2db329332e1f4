import { expect } from 'vitest';
import type { TestServer, TestUser } from './harness.js';

/** An organization `owner` creates through the API (named Acme), as the tests of lists need. */
export async function createOrganization(server: TestServer, owner: TestUser): Promise<{ id: string }> {
  const res = await server.post('/organizations.json', {
    token: owner.token,
    body: { organization: { name: 'Acme' } },
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string };
}
