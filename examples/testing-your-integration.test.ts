/**
 * Testing your integration with the test kit: the real reference server, in-process, on an
 * in-memory database, emptied between tests. `collabCounts` below stands for your own code; the
 * tests drive it against the server through `@app/sdk` (runs with `pnpm test`; on its own:
 * `node_modules/.bin/vitest run --project examples testing-your-integration`).
 */
import { AuthenticationError, type Marketplace, type OrganizationId } from '@app/sdk';
import { startTestServer, type TestServer } from '@app/testing';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';

// ---- your integration: the number of collabs in each state, over every page -------------------

async function collabCounts(client: Marketplace, orgId: OrganizationId): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for await (const collab of client.collabs.list(orgId))
    counts[collab.state] = (counts[collab.state] ?? 0) + 1;
  return counts;
}

// ---- its tests -------------------------------------------------------------------------------

let server: TestServer;

// The first start makes the kit's snapshot: seconds, more on a busy machine, so the hook gets
// more than vitest's default 10 s (README, "Testing your integration").
beforeAll(async () => {
  server = await startTestServer();
}, 60_000);

afterEach(async () => {
  await server?.reset(); // every test starts from an empty sandbox
});

afterAll(async () => {
  await server?.close(); // `?.`: a start that failed leaves no server to close
});

describe('collabCounts', () => {
  test('counts every collab, past the first page, by state', async () => {
    const client = server.client(await server.createUser({ name: 'Brand manager' }));
    const org = await client.organizations.create({ name: 'Acme' });
    for (let i = 1; i <= 22; i++) await client.collabs.create(org.id, { name: `Collab ${i}` });
    const [newest] = await client.collabs.list(org.id).toArray({ limit: 1 });
    await client.collabs.submit(org.id, newest!.id);
    // What the marketplace's review would do, through the test helpers (the client carries the key).
    const [second] = (await client.collabs.list(org.id).toArray({ limit: 2 })).slice(1);
    await client.testHelpers.setCollabState(org.id, second!.id, { state: 'published' });

    expect(await collabCounts(client, org.id)).toEqual({ draft: 20, submitted_for_review: 1, published: 1 });
  });

  test('is empty for a new organization (the previous test left nothing behind)', async () => {
    const client = server.client(await server.createUser());
    expect((await client.organizations.list()).data).toEqual([]);
    const org = await client.organizations.create({ name: 'Quiet Co' });
    expect(await collabCounts(client, org.id)).toEqual({});
  });

  test('fails with a typed error when the token is refused', async () => {
    const token = await server.createUser({ permission: 'read' });
    const org = await server.client(await server.createUser()).organizations.create({ name: 'Acme' });
    await server.reset(); // the tokens made before it no longer work
    await expect(collabCounts(server.client(token), org.id)).rejects.toBeInstanceOf(AuthenticationError);
  });
});
