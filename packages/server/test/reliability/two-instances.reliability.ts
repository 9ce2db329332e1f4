/**
 * Two instances of the server (two apps, each with its own ORM and connection pool, as two
 * processes behind a load balancer would be) on ONE PostgreSQL database: no state that matters
 * lives in an instance.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Orm, openDatabase } from '../../src/db/database.js';
import {
  type Answer,
  createTestDatabase,
  createUser,
  type Instance,
  listen,
  send,
  TEST_HELPERS_KEY,
  type TestDatabase,
  type TestUser,
} from './support.js';

let db: TestDatabase;
let dataDir: string;
const orms: Orm[] = [];
let a: Instance;
let b: Instance;

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'mkt-rel-two-'));
  for (let i = 0; i < 2; i++) orms.push(await openDatabase({ url: db.url, dataDir }));
  a = await listen(orms[0] as Orm);
  b = await listen(orms[1] as Orm);
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  for (const orm of orms) await orm.close(true);
  await db?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function createOrganization(owner: TestUser, name: string): Promise<string> {
  const created = await send(a.url, 'POST', '/organizations.json', {
    token: owner.token,
    body: { organization: { name } },
  });
  expect(created.status).toBe(201);
  return created.json<{ id: string }>().id;
}

describe('two instances on one PostgreSQL database', () => {
  it('give the same ETag for the same show, and each honours the tag the other gave', async () => {
    const owner = await createUser(orms[0] as Orm);
    const orgId = await createOrganization(owner, 'Acme');
    const collab = await send(b.url, 'POST', `/organizations/${orgId}/collabs.json`, {
      token: owner.token,
      body: {
        collab: { name: 'Launch', brief: '# Brief\n\nSome **bold** text and a [link](https://example.com).' },
      },
    });
    expect(collab.status).toBe(201);
    const collabId = collab.json<{ id: string }>().id;

    for (const path of [`/organizations/${orgId}.json`, `/organizations/${orgId}/collabs/${collabId}.json`]) {
      const [fromA, fromB] = [
        await send(a.url, 'GET', path, { token: owner.token }),
        await send(b.url, 'GET', path, { token: owner.token }),
      ];
      expect(fromA.status).toBe(200);
      expect(fromB.status).toBe(200);
      expect(fromA.headers.get('etag')).toMatch(/^W\/"/);
      expect(fromB.headers.get('etag')).toBe(fromA.headers.get('etag'));
      expect(fromB.text).toBe(fromA.text);
      const revalidated = await send(b.url, 'GET', path, {
        token: owner.token,
        headers: { 'if-none-match': fromA.headers.get('etag') as string },
      });
      expect(revalidated.status).toBe(304);
      expect(revalidated.text).toBe('');
      expect(revalidated.headers.get('etag')).toBe(fromA.headers.get('etag'));
    }

    // A change through B makes A's old tag stale on A too.
    const before = (
      await send(a.url, 'GET', `/organizations/${orgId}.json`, { token: owner.token })
    ).headers.get('etag') as string;
    expect(
      (
        await send(b.url, 'PATCH', `/organizations/${orgId}.json`, {
          token: owner.token,
          body: { organization: { name: 'Acme Renamed' } },
        })
      ).status,
    ).toBe(200);
    const afterA = await send(a.url, 'GET', `/organizations/${orgId}.json`, {
      token: owner.token,
      headers: { 'if-none-match': before },
    });
    expect(afterA.status).toBe(200);
    expect(afterA.json<{ name: string }>().name).toBe('Acme Renamed');
    const afterB = await send(b.url, 'GET', `/organizations/${orgId}.json`, { token: owner.token });
    expect(afterB.headers.get('etag')).toBe(afterA.headers.get('etag'));
    expect(afterB.headers.get('etag')).not.toBe(before);
  });

  it('refuse on one instance a token revoked through the other, on the very next request', async () => {
    const alice = await createUser(orms[0] as Orm);
    const second = await send(a.url, 'POST', '/me/access_tokens.json', {
      token: alice.token,
      body: { access_token: { description: 'CI', permission: 'write' } },
    });
    const { id, token } = second.json<{ id: string; token: string }>();
    // Both instances have seen the token work.
    expect((await send(a.url, 'GET', '/me/access_tokens.json', { token })).status).toBe(200);
    expect((await send(b.url, 'GET', '/me/access_tokens.json', { token })).status).toBe(200);

    expect((await send(a.url, 'DELETE', `/me/access_tokens/${id}.json`, { token: alice.token })).status).toBe(
      204,
    );
    for (const instance of [b, a]) {
      const refused = await send(instance.url, 'GET', '/me/access_tokens.json', { token });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Token realm="Application"');
    }

    // A token that revokes itself through B is refused by A next.
    expect(
      (await send(b.url, 'DELETE', `/me/access_tokens/${alice.tokenId}.json`, { token: alice.token })).status,
    ).toBe(204);
    expect((await send(a.url, 'GET', '/me/access_tokens.json', { token: alice.token })).status).toBe(401);
    expect(await db.sql('select id from access_tokens where user_id = $1', [alice.user.id])).toEqual([]);
  });

  it('keep an admin when 20 concurrent demotions and removals race across both instances', async () => {
    const statuses = new Map<number, number>();
    for (let round = 0; round < 3; round++) {
      const owner = await createUser(orms[0] as Orm);
      const [pat, quinn, member] = [
        await createUser(orms[0] as Orm),
        await createUser(orms[0] as Orm),
        await createUser(orms[0] as Orm),
      ];
      const orgId = await createOrganization(owner, `Race ${round}`);
      const ids: Record<string, string> = {};
      for (const [user, role] of [
        [pat, 'admin'],
        [quinn, 'admin'],
        [member, 'member'],
      ] as const) {
        const added = await send(a.url, 'POST', `/test_helpers/organizations/${orgId}/members.json`, {
          token: TEST_HELPERS_KEY,
          body: { membership: { user_id: user.user.id, role } },
        });
        expect(added.status).toBe(201);
        ids[user.user.id] = added.json<{ id: string }>().id;
      }
      // Two admins and no owner, and the owner's membership gone: only the "only remaining admin"
      // guard stands between the race and an organization nobody can administer.
      await db.sql('delete from memberships where organization_id = $1 and user_id = $2', [
        orgId,
        owner.user.id,
      ]);

      const patId = ids[pat.user.id] as string;
      const quinnId = ids[quinn.user.id] as string;
      const path = (id: string) => `/organizations/${orgId}/members/${id}.json`;
      const demote = { membership: { role: 'member' } };
      const moves: (() => Promise<Answer>)[] = [];
      for (let i = 0; i < 20; i++) {
        const instance = i % 2 === 0 ? a : b;
        // Each admin: 4 demotions of the other, 4 removals of the other, 2 removals of themselves.
        const [actor, otherId, ownId] = i % 4 < 2 ? [pat, quinnId, patId] : [quinn, patId, quinnId];
        const kind = Math.floor(i / 4) % 3;
        moves.push(() =>
          kind === 0
            ? send(instance.url, 'PATCH', path(otherId), { token: actor.token, body: demote })
            : send(instance.url, 'DELETE', path(kind === 1 ? otherId : ownId), { token: actor.token }),
        );
      }
      const answers = await Promise.all(moves.map((move) => move()));
      for (const answer of answers) {
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        expect([200, 204, 403, 404, 422]).toContain(answer.status);
        if (answer.status === 422)
          expect(Object.keys(answer.json<{ errors: object }>().errors)).toHaveLength(1);
      }
      const [counts] = await db.sql<{ admins: number; members: number }>(
        `select count(*) filter (where role = 'admin')::int as admins, count(*)::int as members
         from memberships where organization_id = $1`,
        [orgId],
      );
      expect(counts?.admins).toBeGreaterThanOrEqual(1);
      expect(counts?.members).toBeGreaterThanOrEqual(1);
    }
    // The guards did fire: some requests lost the race and were refused.
    expect(statuses.get(422) ?? 0).toBeGreaterThan(0);
    console.log(`membership race statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
  });
});
