/**
 * The test kit, imported the way an integrator imports it (`@app/testing`; in this
 * workspace the `@app/source` condition resolves it to the TypeScript source).
 */

import { connect, createServer } from 'node:net';
import { AuthenticationError, Marketplace } from '@app/sdk';
import { freePort, startTestServer, type TestServer } from '@app/testing';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
});

describe('startTestServer()', () => {
  it('listens on a loopback port with a test-helpers key of its own', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.helpersKey.length).toBeGreaterThanOrEqual(32);
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    // The helpers are on, keyed by that key.
    const refused = await fetch(`${server.url}/test_helpers/reset.json`, { method: 'POST' });
    expect(refused.status).toBe(401);
  });

  it('createUser() makes a user through the test helpers and resolves to a write token', async () => {
    const token = await server.createUser();
    expect(token).toMatch(/^mkt_/);
    const client = server.client(token);
    expect(client).toBeInstanceOf(Marketplace);
    const org = await client.organizations.create({ name: 'Acme' });
    expect(org).toMatchObject({ name: 'Acme' });
    expect((await client.organizations.list()).data.map((o) => o.id)).toEqual([org.id]);
    const [listed] = (await client.me.accessTokens.list()).data;
    expect(listed).toMatchObject({ permission: 'write' });
  });

  it('createUser() takes a name, an address and a permission', async () => {
    const token = await server.createUser({
      name: 'Reader',
      email: 'reader@example.com',
      permission: 'read',
    });
    const client = server.client(token);
    expect((await client.me.accessTokens.list()).data).toMatchObject([{ permission: 'read' }]);
    await expect(client.organizations.create({ name: 'Nope' })).rejects.toBeInstanceOf(AuthenticationError);
    // The address is taken now.
    await expect(server.createUser({ email: 'reader@example.com' })).rejects.toMatchObject({ status: 422 });
  });

  it('client(token) carries the test-helpers key, and takes client options', async () => {
    const token = await server.createUser();
    const client = server.client(token, { maxRetries: 0, userAgent: 'kit-test/1.0' });
    const org = await client.organizations.create({ name: 'Acme' });
    await client.testHelpers.setSubscription(org.id, { active: true });
    expect(await client.organizations.retrieve(org.id)).toMatchObject({ id: org.id });
  });

  it('takes an option given as undefined as not given (an unset variable), as the SDK does', async () => {
    // Under `exactOptionalPropertyTypes` these are what `process.env.X` gives; they type-check.
    const unset: string | undefined = undefined;
    const other = await startTestServer({
      helpersKey: unset,
      databaseUrl: unset,
      random: undefined,
      env: { LOG_LEVEL: unset, MARKETPLACE_LIMIT_ORGANIZATIONS: '1' },
    });
    try {
      expect(other.helpersKey.length).toBeGreaterThanOrEqual(32);
      const token = await other.createUser({ name: unset, email: unset, permission: undefined });
      // The kit's own options stay: the server's URL, the token, the helpers key.
      const client = other.client(token, {
        baseUrl: unset,
        token: unset,
        testHelpersKey: unset,
        maxRetries: 0,
      });
      const org = await client.organizations.create({ name: 'One' });
      await client.testHelpers.setSubscription(org.id, { active: true });
      await expect(client.organizations.create({ name: 'Two' })).rejects.toMatchObject({ status: 422 });
      expect((await client.me.accessTokens.list()).data).toMatchObject([{ permission: 'write' }]);
    } finally {
      await other.close();
    }
  });

  it('testHelpers makes what needs a user id (a notification, a membership) without a token', async () => {
    const owner = server.client(await server.createUser());
    const org = await owner.organizations.create({ name: 'Helpers Co' });
    const { user, access_token } = await server.testHelpers.createUser({
      user: { name: 'Bea', email: 'bea@example.com' },
    });
    await server.testHelpers.addMember(org.id, { user_id: user.id, role: 'member' });
    await server.testHelpers.createNotification(user.id, {
      type: 'organization_membership_created',
      params: {},
      record_type: 'Organization',
      record_id: org.id,
    });
    const bea = server.client(access_token.token);
    expect((await bea.organizations.list()).data.map((o) => o.id)).toEqual([org.id]);
    expect((await bea.me.notifications.list()).data).toMatchObject([
      { type: 'organization_membership_created' },
    ]);
  });

  it("a faked Date (README, Time) is the server's clock for what it stamps; last_used_at is the database's", async () => {
    // A server of its own: on PGlite, PostgreSQL's timers set at the faked time stay set for it
    // (README, Time), and would print warnings through the tests after this one.
    const server = await startTestServer();
    const owner = server.client(await server.createUser());
    const org = await owner.organizations.create({ name: 'Clock Co' });
    const { user } = await server.testHelpers.createUser({ user: { name: 'Cy', email: 'cy@example.com' } });
    vi.useFakeTimers({ toFake: ['Date'] });
    onTestFinished(async () => {
      vi.useRealTimers();
      await server.close();
    });
    vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
    const notify = () =>
      server.testHelpers.createNotification(user.id, {
        type: 'organization_membership_created',
        params: {},
        record_type: 'Organization',
        record_id: org.id,
      });
    const first = await notify();
    const collab = await owner.collabs.create(org.id, { name: 'Launch' });
    vi.setSystemTime(new Date('2030-01-02T12:00:00Z'));
    const second = await notify();
    expect(
      [first.created_at, collab.created_at, second.created_at].map((at) => new Date(at).toISOString()),
    ).toEqual(['2030-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z', '2030-01-02T12:00:00.000Z']);
    // Set by the database's now(): PGlite's clock is the test process's `Date` (it asks it), so a use
    // at the faked time records it; PostgreSQL's is its own, which no fake in the test process moves.
    const [token] = (await owner.me.accessTokens.list()).data;
    const lastUsed = new Date(token?.last_used_at as string);
    if (process.env.MARKETPLACE_TEST_DATABASE_URL) expect(lastUsed.getUTCFullYear()).toBeLessThan(2030);
    else expect(lastUsed.toISOString()).toBe('2030-01-02T12:00:00.000Z');
  });

  it('sql() reads what the server stored, with ? placeholders', async () => {
    const client = server.client(await server.createUser());
    const org = await client.organizations.create({ name: 'Stored Co' });
    expect(await server.sql('select name from organizations where id = ?', [org.id])).toEqual([
      { name: 'Stored Co' },
    ]);
  });

  it('reset() empties the sandbox: earlier tokens are refused and lists are empty', async () => {
    const before = await server.createUser();
    await server.client(before).organizations.create({ name: 'Gone' });
    await server.reset();
    await expect(server.client(before).organizations.list()).rejects.toBeInstanceOf(AuthenticationError);
    const after = server.client(await server.createUser());
    expect((await after.organizations.list()).data).toEqual([]);
    expect((await after.me.accessTokens.list()).data).toHaveLength(1);
  });

  it('gives each server its own database', async () => {
    const other = await startTestServer();
    try {
      expect(other.url).not.toBe(server.url);
      expect(other.helpersKey).not.toBe(server.helpersKey);
      const token = await server.createUser();
      await server.client(token).organizations.create({ name: 'Only here' });
      await expect(other.client(token).organizations.list()).rejects.toBeInstanceOf(AuthenticationError);
    } finally {
      await other.close();
    }
  });

  it('takes a key and settings of its own', async () => {
    const helpersKey = 'my-own-test-helpers-key-0123456789abcdef';
    const other = await startTestServer({ helpersKey, env: { MARKETPLACE_LIMIT_ORGANIZATIONS: '1' } });
    try {
      expect(other.helpersKey).toBe(helpersKey);
      const client = other.client(await other.createUser());
      await client.organizations.create({ name: 'One' });
      await expect(client.organizations.create({ name: 'Two' })).rejects.toMatchObject({ status: 422 });
    } finally {
      await other.close();
    }
  });

  it('a helpersKey too short is refused naming the option, before anything starts (it named MARKETPLACE_TEST_HELPERS_KEY, which the caller never set)', async () => {
    await expect(startTestServer({ helpersKey: 'short' })).rejects.toThrow(
      new RangeError('startTestServer: helpersKey must be at least 32 characters (got 5)'),
    );
  });

  it('takes the random source of its chaos 503s', async () => {
    const other = await startTestServer({ env: { MARKETPLACE_CHAOS_503_RATE: '0.5' }, random: () => 0 });
    try {
      const client = other.client('mkt_unused', { maxRetries: 0 });
      await expect(client.organizations.list()).rejects.toMatchObject({ status: 503 });
    } finally {
      await other.close();
    }
  });

  it('close() stops the server for good, and may be called again', async () => {
    const other = await startTestServer();
    const token = await other.createUser();
    await other.close();
    await expect(fetch(`${other.url}/health`)).rejects.toThrow();
    await expect(other.client(token, { maxRetries: 0 }).organizations.list()).rejects.toThrow();
    await other.close();
  });

  it('close() does not wait for a client that keeps its connection open (a request half sent)', async () => {
    const other = await startTestServer();
    const socket = connect(Number(new URL(other.url).port), '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((done) =>
      socket.write('GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\n', () => done()),
    );
    const ended = new Promise<void>((done) => socket.once('close', () => done()));
    await other.close();
    await ended;
  });
});

describe('freePort()', () => {
  it('is a loopback port nothing listens on', async () => {
    const port = await freePort();
    const listener = createServer();
    await new Promise<void>((resolve, reject) =>
      listener.once('error', reject).listen(port, '127.0.0.1', resolve),
    );
    await new Promise((resolve) => listener.close(resolve));
    expect(port).toBeGreaterThan(0);
  });
});
