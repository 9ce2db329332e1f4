import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_HELPERS_KEY, useTestServer } from '../../../test/harness.js';

const server = useTestServer();

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(64)]);

const reset = (key: string | null = TEST_HELPERS_KEY) =>
  server.post('/test_helpers/reset.json', { token: key });

const helperUser = async (email: string) => {
  const res = await server.post('/test_helpers/users.json', {
    token: TEST_HELPERS_KEY,
    body: { user: { name: 'Ann', email } },
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { user: { id: string }; access_token: { token: string } };
};

/** A user with an organization (logo uploaded), a collab, a second token and a notification. */
async function populate() {
  const owner = await helperUser('ann@example.com');
  const token = owner.access_token.token;
  const logo = new FormData();
  logo.append('organization[name]', 'Acme');
  logo.append('organization[logo]', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'logo.png');
  const org = await server.post('/organizations.json', { token, form: logo });
  expect(org.statusCode).toBe(201);
  const { id, logo_url } = org.json();
  expect((await server.post(`/organizations/${id}/collabs.json`, { token, body: {} })).statusCode).toBe(201);
  const second = await server.post('/me/access_tokens.json', {
    token,
    body: { access_token: { description: 'CI', permission: 'read' } },
  });
  expect(second.statusCode).toBe(201);
  const notified = await server.post(`/test_helpers/users/${owner.user.id}/notifications.json`, {
    token: TEST_HELPERS_KEY,
    body: { notification: { type: 'X', record_type: 'Y', record_id: 'z' } },
  });
  expect(notified.statusCode).toBe(201);
  return { tokens: [token, second.json().token as string], orgId: id as string, logoUrl: logo_url as string };
}

describe('POST /test_helpers/reset.json', () => {
  it('answers 204 and empties the sandbox: earlier tokens are refused, lists are empty, uploads gone', async () => {
    const before = await populate();
    const logoPath = new URL(before.logoUrl).pathname;
    expect((await server.get(logoPath)).statusCode).toBe(200);

    const res = await reset();
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(res.headers['cache-control']).toBe('no-store');

    for (const token of before.tokens) {
      const refused = await server.get('/organizations.json', { token });
      expect(refused.statusCode).toBe(401);
      expect(refused.body).toBe('HTTP Token: Access denied.');
    }
    expect((await server.get(logoPath)).statusCode).toBe(404);

    // The same e-mail address can sign up again, and the new user sees nothing of the old world.
    const fresh = await helperUser('ann@example.com');
    const token = fresh.access_token.token;
    for (const list of ['/organizations.json', '/me/notifications.json', '/me/social_accounts.json']) {
      const page = await server.get(list, { token });
      expect(page.statusCode, list).toBe(200);
      expect(page.json(), list).toEqual([]);
      expect(page.headers['total-count'], list).toBe('0');
    }
    expect((await server.get('/me/access_tokens.json', { token })).json()).toHaveLength(1);
    expect((await server.get(`/organizations/${before.orgId}.json`, { token })).statusCode).toBe(404);
  });

  it('leaves every table empty and no stored upload behind, and may be called on an empty sandbox', async () => {
    await populate();
    // A file the upload store did not name stays (only the store's own files are removed).
    const uploads = join(server.config.dataDir, 'uploads');
    writeFileSync(join(uploads, 'README'), 'not an upload');
    expect((await reset()).statusCode).toBe(204);
    const tables = await server.sql<{ tablename: string }>(
      "select tablename from pg_tables where schemaname = current_schema() and tablename <> 'mikro_orm_migrations'",
    );
    expect(tables.length).toBeGreaterThanOrEqual(13);
    for (const { tablename } of tables)
      expect(await server.sql(`select count(*)::int as n from "${tablename}"`), tablename).toEqual([
        { n: 0 },
      ]);
    expect(existsSync(uploads) ? readdirSync(uploads) : []).toEqual(['README']);
    expect((await reset()).statusCode).toBe(204);
  });

  it('answers 401 to a wrong, missing or user key and empties nothing', async () => {
    const { tokens } = await populate();
    for (const key of ['wrong-key-wrong-key-wrong-key-wrong', tokens[0] as string, null]) {
      const res = await reset(key);
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Token realm="Application"');
    }
    expect((await server.get('/organizations.json', { token: tokens[0] })).json()).toHaveLength(1);
  });
});

describe('POST /test_helpers/reset.json without the test helpers', () => {
  const disabled = useTestServer({ testHelpersKey: undefined });

  it('is 404 and empties nothing', async () => {
    const { token } = await disabled.createUser();
    const res = await disabled.post('/test_helpers/reset.json', { token: TEST_HELPERS_KEY });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: expect.any(String) });
    expect((await disabled.get('/organizations.json', { token })).statusCode).toBe(200);
  });
});
