import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { databaseUrlWith } from '../../../test/global-setup.js';
import { TEST_HELPERS_KEY, useTestServer } from '../../../test/harness.js';
import { openBody, storedKeyOf } from './idempotency.service.js';

const server = useTestServer();

const REUSED = { errors: { base: ['Idempotency-Key was used with another request'] } };
const IN_PROGRESS = { error: 'A request with this Idempotency-Key is in progress' };
const INVALID = { error: 'Idempotency-Key must be 1 to 255 printable ASCII characters' };

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(64)]);
const OTHER_PNG = Buffer.concat([PNG.subarray(0, 8), randomBytes(64)]);

const createOrganization = (token: string, key: string | undefined, name = 'Acme') =>
  server.post('/organizations.json', {
    token,
    body: { organization: { name } },
    ...(key !== undefined && { headers: { 'idempotency-key': key } }),
  });

function logoForm(name: string, logo: Buffer) {
  const data = new FormData();
  data.append('organization[name]', name);
  data.append('organization[logo]', new Blob([new Uint8Array(logo)], { type: 'image/png' }), 'logo.png');
  return data;
}

const organizationCount = async () =>
  Number((await server.sql<{ n: string }>('select count(*) as n from organizations'))[0]?.n);
/** The rows of the keys, each with the key it was stored for (the table holds its SHA-256). */
const keyRows = async (...keys: string[]) =>
  (
    await server.sql<{ user_id: string; key: string; status: number | null }>(
      'select user_id, "key", status from idempotency_keys order by user_id',
    )
  ).map((row) => ({ ...row, key: keys.find((key) => storedKeyOf(key) === row.key) ?? row.key }));

/** What a client sees of an answer, for comparing an answer with its replay. */
const seen = (res: LightMyRequestResponse) => ({
  status: res.statusCode,
  location: res.headers.location,
  etag: res.headers.etag,
  contentType: res.headers['content-type'],
  body: res.body,
});

describe('Idempotency-Key on POST', () => {
  it('answers the same key and request again from the stored answer, and does nothing again', async () => {
    const { token, user } = await server.createUser();
    const first = await createOrganization(token, 'order-1');
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await createOrganization(token, 'order-1');
    expect(seen(again)).toEqual(seen(first));
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await organizationCount()).toBe(1);
    expect(await keyRows('order-1')).toEqual([{ user_id: user.id, key: 'order-1', status: 201 }]);
  });

  it('replays a transition: the 303 and its Location, and the state changes once', async () => {
    const { token } = await server.createUser();
    const org = (await createOrganization(token, undefined)).json();
    const collab = (await server.post(`/organizations/${org.id}/collabs.json`, { token })).json();
    const submit = () =>
      server.post(`/organizations/${org.id}/collabs/${collab.id}/submit.json`, {
        token,
        headers: { 'idempotency-key': 'submit-1' },
      });
    const first = await submit();
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe(
      `${server.config.baseUrl}/organizations/${org.id}/collabs/${collab.id}`,
    );
    const again = await submit();
    // Without the key, submitting again is refused: the collab is no longer a draft.
    expect(seen(again)).toEqual(seen(first));
    expect(again.headers['idempotent-replayed']).toBe('true');
    const shown = await server.get(`/organizations/${org.id}/collabs/${collab.id}.json`, { token });
    expect(shown.json().state).toBe('submitted_for_review');
  });

  it('refuses the same key with another payload or path: 422 on base, nothing done', async () => {
    const { token } = await server.createUser();
    expect((await createOrganization(token, 'k', 'Acme')).statusCode).toBe(201);
    const other = await createOrganization(token, 'k', 'Other name');
    expect(other.statusCode).toBe(422);
    expect(other.json()).toEqual(REUSED);
    const org = (await server.get('/organizations.json', { token })).json()[0];
    const otherPath = await server.post(`/organizations/${org.id}/collabs.json`, {
      token,
      headers: { 'idempotency-key': 'k' },
    });
    expect(otherPath.statusCode).toBe(422);
    expect(otherPath.json()).toEqual(REUSED);
    expect(await organizationCount()).toBe(1);
    expect(Number((await server.sql<{ n: string }>('select count(*) as n from collabs'))[0]?.n)).toBe(0);
  });

  /**
   * Holds (user, key) as a request on another replica does: the advisory lock, in a transaction
   * of a connection of its own (PostgreSQL), until `release` rolls it back or `kill` cuts the
   * connection, as a SIGKILLed replica's is.
   */
  async function holdKey(userId: string, key: string) {
    const database = inject('database');
    if (database.kind !== 'postgres') throw new Error('PostgreSQL only');
    const [{ name } = { name: '' }] = await server.sql<{ name: string }>('select current_database() as name');
    const other = new pg.Client({ connectionString: databaseUrlWith(database.url, name) });
    await other.connect();
    other.on('error', () => {});
    await other.query('begin');
    const { rows } = await other.query<{ pid: number }>(
      `select pg_backend_pid() as pid, pg_advisory_xact_lock(hashtextextended('idempotency:' || $1 || ':' || $2, 0))`,
      [userId, key],
    );
    return {
      release: () => other.end(),
      kill: async () => {
        await server.sql('select pg_terminate_backend(?)', [rows[0]?.pid]);
        await other.end().catch(() => {});
      },
    };
  }

  it('answers 409 with Retry-After: 1 while the first request with the key is running', async () => {
    const { token, user } = await server.createUser();
    if (inject('database').kind === 'pglite') {
      // One session in one process: a request's transaction holds the instance, so the second
      // request with the key waits for the first, and gets its replay.
      const [first, second] = await Promise.all([
        createOrganization(token, 'busy'),
        createOrganization(token, 'busy'),
      ]);
      expect([first?.statusCode, second?.statusCode]).toEqual([201, 201]);
      expect(second?.headers['idempotent-replayed']).toBe('true');
      expect(await organizationCount()).toBe(1);
      return;
    }
    // Another replica's request holds the key (its transaction is open).
    const held = await holdKey(user.id, 'busy');
    try {
      const res = await createOrganization(token, 'busy');
      expect(res.statusCode).toBe(409);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.json()).toEqual(IN_PROGRESS);
      expect(await organizationCount()).toBe(0);
      expect(await keyRows()).toEqual([]);
    } finally {
      await held.release();
    }
    // Its request ended without an answer (rolled back): the next one runs.
    expect((await createOrganization(token, 'busy')).statusCode).toBe(201);
  });

  it('a request whose replica was killed holds nothing: the retry runs at once, and writes once', async () => {
    const { token, user } = await server.createUser();
    if (inject('database').kind === 'pglite') {
      // No other session to kill; an older version's row without an answer does not hold the key.
      await server.sql(
        `insert into idempotency_keys (id, user_id, "key", fingerprint, created_at) values (?, ?, ?, ?, now())`,
        ['inprogress000001', user.id, storedKeyOf('left'), 'f'.repeat(64)],
      );
    } else {
      const held = await holdKey(user.id, 'left');
      await held.kill();
    }
    const res = await createOrganization(token, 'left');
    expect(res.statusCode).toBe(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await organizationCount()).toBe(1);
    expect(await keyRows('left')).toEqual([{ user_id: user.id, key: 'left', status: 201 }]);
  });

  it('commits the write and its stored answer together: a replay finds the row the answer names', async () => {
    const { token, user } = await server.createUser();
    const first = await createOrganization(token, 'together');
    expect(first.statusCode).toBe(201);
    const [row] = await server.sql<{ status: number; body: string }>(
      'select status, body from idempotency_keys where user_id = ? and "key" = ?',
      [user.id, storedKeyOf('together')],
    );
    expect(row?.status).toBe(201);
    expect(JSON.parse(openBody(row?.body ?? '', user.id, 'together')).id).toBe(first.json().id);
    expect(await server.sql('select id from organizations')).toEqual([{ id: first.json().id }]);
  });

  it('keeps neither the key nor a readable answer in the database: a token created with a key is in no row, and its replay gives it back', async () => {
    const { token, user } = await server.createUser();
    const create = () =>
      server.post('/me/access_tokens.json', {
        token,
        body: { access_token: { description: 'CI', permission: 'read' } },
        headers: { 'idempotency-key': 'token-key-1' },
      });
    const first = await create();
    expect(first.statusCode).toBe(201);
    const secret = first.json().token as string;
    expect(secret).toMatch(/^mkt_/);
    const rows = await server.sql<Record<string, unknown>>('select * from idempotency_keys');
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain('token-key-1');
    expect(stored).not.toContain('"description":"CI"');
    // The client's key opens it: the replay is the first answer, token included.
    const again = await create();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    // Another user's request with the key runs as its own.
    const other = await server.createUser();
    const theirs = await server.post('/me/access_tokens.json', {
      token: other.token,
      body: { access_token: { description: 'CI', permission: 'read' } },
      headers: { 'idempotency-key': 'token-key-1' },
    });
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.json().token).not.toBe(secret);
    expect(
      await server.sql('select count(*)::int as n from access_tokens where user_id = ?', [user.id]),
    ).toEqual([{ n: 2 }]);
  });

  it('10 concurrent requests with one key: one organization, one key row; the others 409 or a replay', async () => {
    const { token, user } = await server.createUser();
    const answers = await Promise.all(Array.from({ length: 10 }, () => createOrganization(token, 'burst')));
    const created = answers.filter((res) => res.statusCode === 201);
    const busy = answers.filter((res) => res.statusCode === 409);
    expect(created.length + busy.length).toBe(10);
    expect(created.filter((res) => res.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(new Set(created.map((res) => res.body)).size).toBe(1);
    for (const res of busy) expect(res.json()).toEqual(IN_PROGRESS);
    expect(await organizationCount()).toBe(1);
    expect(await keyRows('burst')).toEqual([{ user_id: user.id, key: 'burst', status: 201 }]);
  });

  it("scopes keys to the token's user: two users, one key, two requests run", async () => {
    const alice = await server.createUser();
    const bob = await server.createUser();
    const a = await createOrganization(alice.token, 'shared', 'Alice Inc');
    const b = await createOrganization(bob.token, 'shared', 'Bob Inc');
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(a.json().id).not.toBe(b.json().id);
    expect(await organizationCount()).toBe(2);
    expect((await keyRows()).map((row) => row.user_id).sort()).toEqual([alice.user.id, bob.user.id].sort());
  });

  it('forgets a key after 24 hours: it runs as new, and expired keys are purged on write', async () => {
    const alice = await server.createUser();
    const bob = await server.createUser();
    expect((await createOrganization(alice.token, 'old', 'First')).statusCode).toBe(201);
    expect((await createOrganization(bob.token, 'bob-old', 'Bob')).statusCode).toBe(201);
    await server.sql(`update idempotency_keys set created_at = now() - interval '24 hours 1 second'`);
    // The same key, another payload: not a 422, a new request.
    const res = await createOrganization(alice.token, 'old', 'Second');
    expect(res.statusCode).toBe(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(res.json().name).toBe('Second');
    expect(await organizationCount()).toBe(3);
    // Bob's expired key went with that write.
    expect(await keyRows('old')).toEqual([{ user_id: alice.user.id, key: 'old', status: 201 }]);
  });

  it('multipart: the same fields and file replay (boundary aside); another file is 422', async () => {
    const { token } = await server.createUser();
    const send = (logo: Buffer) =>
      server.post('/organizations.json', {
        token,
        form: logoForm('Acme', logo),
        headers: { 'idempotency-key': 'upload' },
      });
    const first = await send(PNG);
    expect(first.statusCode).toBe(201);
    const again = await send(PNG);
    expect(seen(again)).toEqual(seen(first));
    expect(again.headers['idempotent-replayed']).toBe('true');
    const other = await send(OTHER_PNG);
    expect(other.statusCode).toBe(422);
    expect(other.json()).toEqual(REUSED);
    expect(await organizationCount()).toBe(1);
    expect(await server.storedUploads()).toHaveLength(1);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['not ASCII', 'clé'],
    ['a control character', 'a\tb'],
  ])('refuses a key that is %s: 400 {"error"}, nothing done', async (_, key) => {
    const { token } = await server.createUser();
    const res = await createOrganization(token, key);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(INVALID);
    expect(await organizationCount()).toBe(0);
    expect(await keyRows()).toEqual([]);
  });

  it('takes a key of 255 printable characters, spaces and symbols included', async () => {
    const { token } = await server.createUser();
    const key = ` !~${'x'.repeat(252)}`;
    expect((await createOrganization(token, key)).statusCode).toBe(201);
    expect((await createOrganization(token, key)).headers['idempotent-replayed']).toBe('true');
  });

  it('leaves unauthenticated requests as they were: 401, whatever the key', async () => {
    for (const key of ['fine', '']) {
      const res = await server.post('/organizations.json', {
        body: { organization: { name: 'Acme' } },
        headers: { 'idempotency-key': key },
      });
      expect(res.statusCode).toBe(401);
      expect(res.body).toBe('HTTP Token: Access denied.');
    }
    expect(await keyRows()).toEqual([]);
  });

  it('leaves a POST without the header as it was: each one runs', async () => {
    const { token } = await server.createUser();
    await createOrganization(token, undefined);
    await createOrganization(token, undefined);
    expect(await organizationCount()).toBe(2);
    expect(await keyRows()).toEqual([]);
  });

  it('stores a 4xx answer too: the same request gets the same 422 without running again', async () => {
    const { token } = await server.createUser();
    const org = (await createOrganization(token, undefined)).json();
    const collab = (await server.post(`/organizations/${org.id}/collabs.json`, { token })).json();
    const publish = () =>
      server.post(`/organizations/${org.id}/collabs/${collab.id}/pause.json`, {
        token,
        headers: { 'idempotency-key': 'pause' },
      });
    const first = await publish();
    expect(first.statusCode).toBe(422);
    const again = await publish();
    expect(seen(again)).toEqual(seen(first));
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('test helpers ignore the header (no user to scope it to): each call runs', async () => {
    const call = (email: string) =>
      server.post('/test_helpers/users.json', {
        headers: { authorization: `Bearer ${TEST_HELPERS_KEY}`, 'idempotency-key': 'helper' },
        body: { user: { name: 'Helper', email } },
      });
    expect((await call('one@example.com')).statusCode).toBe(201);
    const second = await call('two@example.com');
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(await keyRows()).toEqual([]);
  });
});
