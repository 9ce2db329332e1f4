/**
 * Tokens at rest: tokens made by every path that makes them (the API, the CLI's `users create`
 * service, the test helpers, the demo start) must not be readable in the database. Every row of
 * every table (listed from the catalogue) is dumped as text and searched for each token and for
 * the 43-character secret inside it, as text, as hex (a bytea column) and as base64.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ACCESS_TOKEN_PREFIX } from '@app/schemas';
import { describe, expect, it, vi } from 'vitest';
import { ensureDemo } from '../../src/demo.js';
import { createUserWithToken } from '../../src/modules/users/users.service.js';
import { TEST_HELPERS_KEY, useTestServer } from '../harness.js';
import { dumpAsText, tableNames } from './database-dump.js';

const server = useTestServer();

/** The forms a secret could be stored in. */
const encodings = (secret: string) => [
  secret,
  Buffer.from(secret).toString('hex'),
  Buffer.from(secret).toString('base64'),
  Buffer.from(secret).toString('base64url'),
];

/** The 43-character random part of a token (between the prefix and the checksum). */
const secretOf = (token: string) => token.slice(ACCESS_TOKEN_PREFIX.length, ACCESS_TOKEN_PREFIX.length + 43);

async function tokensFromEveryPath(): Promise<Record<string, string>> {
  const tokens: Record<string, string> = {};

  // The demo start (on an empty database); it prints the token, which is its purpose.
  const print = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    await ensureDemo(server.app, server.orm, server.config, server.config.baseUrl);
    const printed = print.mock.calls.map((c) => String(c[0])).join('');
    tokens.demo = /Demo token: (\S+)/.exec(printed)?.[1] as string;
  } finally {
    print.mockRestore();
  }

  // `marketplace-server users create` runs this service in its own process and database.
  for (const permission of ['read', 'write'] as const) {
    const created = await createUserWithToken(
      server.orm.em.fork(),
      { name: `CLI ${permission}`, email: `cli-${permission}@example.com` },
      { description: 'Created by marketplace-server users create', permission },
    );
    tokens[`cli ${permission}`] = created.access_token.token;
  }

  for (const permission of ['read', 'write'] as const) {
    const res = await server.post('/test_helpers/users.json', {
      headers: { authorization: `Bearer ${TEST_HELPERS_KEY}` },
      body: {
        user: { name: 'Helper', email: `helper-${permission}@example.com` },
        access_token: { permission },
      },
    });
    expect(res.statusCode).toBe(201);
    tokens[`test helper ${permission}`] = res.json().access_token.token;
  }

  const owner = tokens['test helper write'] as string;
  for (const permission of ['read', 'write'] as const) {
    const res = await server.post('/me/access_tokens.json', {
      token: owner,
      body: { access_token: { description: `API ${permission}`, permission } },
    });
    expect(res.statusCode).toBe(201);
    tokens[`API ${permission}`] = res.json().token;
  }
  return tokens;
}

describe('tokens at rest', () => {
  it('no table holds a token or its secret, in any encoding; only digests are stored', async () => {
    const tokens = await tokensFromEveryPath();
    expect(Object.keys(tokens)).toHaveLength(7);
    for (const token of Object.values(tokens)) expect(token).toMatch(/^mkt_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}$/);

    // Every token is used (so that last_used_at is written) and one is revoked.
    for (const token of Object.values(tokens))
      expect((await server.get('/me/access_tokens.json', { token })).statusCode).toBe(200);
    const apiWrite = tokens['API write'] as string;
    const list = (await server.get('/me/access_tokens.json', { token: apiWrite })).json() as Array<{
      id: string;
      description: string;
    }>;
    const revoke = list.find((t) => t.description === 'API read')?.id;
    expect((await server.delete(`/me/access_tokens/${revoke}.json`, { token: apiWrite })).statusCode).toBe(
      204,
    );

    const tables = await tableNames(server);
    expect(tables).toEqual(expect.arrayContaining(['access_tokens', 'users']));
    const dump = await dumpAsText(server);
    expect(Object.keys(dump).sort()).toEqual([...tables].sort());
    const text = Object.values(dump).flat().join('\n');

    for (const [origin, token] of Object.entries(tokens)) {
      for (const secret of [token, secretOf(token)])
        for (const form of encodings(secret)) expect(text.includes(form), `${origin}: ${form}`).toBe(false);
      // What is stored instead: the SHA-256 digest (the revoked token's row is gone).
      const digest = createHash('sha256').update(token).digest('hex');
      expect(text.includes(digest), origin).toBe(token !== tokens['API read']);
    }
  });

  it('the search finds a secret that is stored (the check can fail)', async () => {
    const { token } = await server.createUser();
    const canary = `${ACCESS_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}ABCDEF`;
    const res = await server.post('/me/access_tokens.json', {
      token,
      body: { access_token: { description: `pasted ${canary} by mistake`, permission: 'read' } },
    });
    expect(res.statusCode).toBe(201);
    const text = Object.values(await dumpAsText(server))
      .flat()
      .join('\n');
    expect(text).toContain(canary);
    expect(text).toContain(secretOf(canary));
  });
});
