/**
 * Database round trips of an authenticated show: one statement for the token, its user, the
 * membership in the organization of the URL (and the `last_used_at` touch), one for the resource.
 * Counted with the ORM's query log, not timed.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from './harness.js';

const server = useTestServer();

async function organizationWithCollab() {
  const { token } = await server.createUser();
  const org = (
    await server.post('/organizations.json', { token, body: { organization: { name: 'Acme' } } })
  ).json();
  const collab = (await server.post(`/organizations/${org.id}/collabs.json`, { token })).json();
  return { token, org, collab };
}

async function statementsOf(request: () => Promise<{ statusCode: number }>, status: number) {
  server.queries.length = 0;
  const res = await request();
  expect(res.statusCode).toBe(status);
  return [...server.queries];
}

describe('round trips of an authenticated show', () => {
  it('is at most two for an organization-scoped show (token + membership, then the resource)', async () => {
    const { token, org, collab } = await organizationWithCollab();
    const url = `/organizations/${org.id}/collabs/${collab.id}.json`;
    expect(await statementsOf(() => server.get(url, { token }), 200)).toHaveLength(2);
    expect(
      await statementsOf(() => server.get(`/organizations/${org.id}.json`, { token }), 200),
    ).toHaveLength(2);
  });

  it('is at most two for a 304', async () => {
    const { token, org } = await organizationWithCollab();
    const url = `/organizations/${org.id}.json`;
    const etag = (await server.get(url, { token })).headers.etag as string;
    const statements = await statementsOf(
      () => server.get(url, { token, headers: { 'if-none-match': etag } }),
      304,
    );
    expect(statements.length).toBeLessThanOrEqual(2);
  });

  it('is one for a non-member (404 from the token statement alone)', async () => {
    const { org } = await organizationWithCollab();
    const stranger = await server.createUser();
    expect(
      await statementsOf(() => server.get(`/organizations/${org.id}.json`, { token: stranger.token }), 404),
    ).toHaveLength(1);
  });

  it('is at most two for a user-scoped show', async () => {
    const { token } = await server.createUser();
    expect(
      (await statementsOf(() => server.get('/me/notification_settings.json', { token }), 200)).length,
    ).toBeLessThanOrEqual(2);
  });
});
