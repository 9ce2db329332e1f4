import { describe, expect, it } from 'vitest';
import { useTestServer } from './harness.js';

const server = useTestServer();

describe('timestamps', () => {
  it('are ISO 8601 UTC with milliseconds, and updated_at equals created_at on creation', async () => {
    const { token } = await server.createUser();
    for (let i = 0; i < 10; i++) {
      const org = (
        await server.post('/organizations.json', { token, body: { organization: { name: `O${i}` } } })
      ).json();
      expect(org.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(org.updated_at).toBe(org.created_at);
    }
  });

  it('moves updated_at on a change and keeps created_at', async () => {
    const { token } = await server.createUser();
    const org = (
      await server.post('/organizations.json', { token, body: { organization: { name: 'A' } } })
    ).json();
    await server.sql(
      "update organizations set created_at = created_at - interval '1 hour', updated_at = updated_at - interval '1 hour'",
    );
    const before = (await server.get(`/organizations/${org.id}.json`, { token })).json();
    const after = (
      await server.patch(`/organizations/${org.id}.json`, { token, body: { organization: { name: 'B' } } })
    ).json();
    expect(after.created_at).toBe(before.created_at);
    expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
  });
});
