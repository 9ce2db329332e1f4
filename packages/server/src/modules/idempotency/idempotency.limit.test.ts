/**
 * How many `Idempotency-Key`s one user keeps (`MARKETPLACE_IDEMPOTENCY_KEYS_PER_USER`, 3 here).
 * Before, every key with a stored answer was kept its 24 hours: `POST`s with unique 200-character
 * keys left a row each (the trial: 2 000 rows, 1.3 MB, for one user, who could add about 100
 * million a day). An answer that cannot run out is a refused transition (`422`, stored: sent again
 * it is answered the same), which is what these tests send. Now storing a key deletes that user's
 * oldest keys past the newest N, in the statement that stores it (so every replica agrees); a
 * retry with a key among the newest N is still answered from it.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../../test/harness.js';
import { storedKeyOf } from './idempotency.service.js';

const KEPT = 3;
const server = useTestServer({ idempotencyKeysPerUser: KEPT });

/** A user with an organization and a draft collab in it, which cannot be paused (`422`). */
async function userWithDraft() {
  const user = await server.createUser();
  const org = (
    await server.post('/organizations.json', { token: user.token, body: { organization: { name: 'Acme' } } })
  ).json();
  const collab = (await server.post(`/organizations/${org.id}/collabs.json`, { token: user.token })).json();
  /** Pausing the draft: refused, `422` on its state, and the answer stored under the key. */
  const pauseDraft = (key: string) =>
    server.post(`/organizations/${org.id}/collabs/${collab.id}/pause.json`, {
      token: user.token,
      headers: { 'idempotency-key': key },
    });
  return { ...user, pauseDraft };
}

/** The keys a user has rows for, oldest first (the table holds their SHA-256). */
async function keysOf(userId: string, candidates: string[]): Promise<string[]> {
  const rows = await server.sql<{ key: string }>(
    'select "key" from idempotency_keys where user_id = ? order by created_at, id',
    [userId],
  );
  return rows.map((row) => candidates.find((key) => storedKeyOf(key) === row.key) ?? row.key);
}

describe(`Idempotency-Keys kept per user (${KEPT})`, () => {
  it("keeps a user's newest keys: storing one more forgets the oldest, and leaves other users' keys alone", async () => {
    const alice = await userWithDraft();
    const bob = await userWithDraft();
    const bobs = ['bob-1', 'bob-2'];
    for (const key of bobs) expect((await bob.pauseDraft(key)).statusCode).toBe(422);
    const alices = Array.from({ length: 6 }, (_, i) => `alice-${i + 1}-${'k'.repeat(200)}`);
    for (const key of alices) {
      expect((await alice.pauseDraft(key)).statusCode).toBe(422);
      // Each key a second older than the next, whatever the resolution of the clock.
      await server.sql(
        "update idempotency_keys set created_at = created_at - interval '1 second' where user_id = ?",
        [alice.user.id],
      );
    }
    expect(await keysOf(alice.user.id, alices)).toEqual(alices.slice(-KEPT));
    expect(await keysOf(bob.user.id, bobs)).toEqual(bobs);

    // A retry with a kept key is answered from it; one with a forgotten key runs again.
    const newest = await alice.pauseDraft(alices[5] as string);
    expect({ status: newest.statusCode, replayed: newest.headers['idempotent-replayed'] }).toEqual({
      status: 422,
      replayed: 'true',
    });
    const oldest = await alice.pauseDraft(alices[0] as string);
    expect({ status: oldest.statusCode, replayed: oldest.headers['idempotent-replayed'] }).toEqual({
      status: 422,
      replayed: undefined,
    });
    expect(await keysOf(alice.user.id, alices)).toEqual([alices[4], alices[5], alices[0]]);
  });
});
