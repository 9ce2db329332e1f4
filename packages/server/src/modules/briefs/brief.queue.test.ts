/**
 * The brief renderer as a shared resource: each user and each organization has a fair share of it
 * (a limit on briefs queued or rendering, then `503` for that user only), users are served
 * round-robin, a brief whose client has gone away is dropped and stores nothing, and a write that
 * waited for its rendering checks the caller's membership and role again before it writes.
 *
 * The renderer is held through its test seam (`briefRenderer.hold`), so what waits in its queue
 * is decided by the test, never by timing; its events tell when a brief was queued or started.
 */
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type OrganizationFixture, setUpOrganization } from '../../../test/fixtures/organization.js';
import { type TestUser, useTestServer } from '../../../test/harness.js';
import {
  BRIEF_RENDERS_PER_ORGANIZATION,
  BRIEF_RENDERS_PER_USER,
  briefRenderer,
  renderBrief,
} from './brief.js';

// No request timeout: these requests wait in a held queue for as long as the test decides.
const server = useTestServer({}, { requestTimeout: 0 });
let org: OrganizationFixture;
/** Makes every brief of a test new to the renderer's cache of recent renderings. */
let nonce = 0;
const brief = (text: string) => `${text} *${Date.now()}-${++nonce}*`;

beforeEach(async () => {
  org = await setUpOrganization(server);
});

afterEach(() => {
  briefRenderer.hold(false);
});

/** Another admin of `organizationId`. */
async function addAdmin(organizationId: string): Promise<TestUser> {
  const user = await server.createUser();
  await server.sql(
    `insert into memberships (id, organization_id, user_id, role, is_owner, created_at, updated_at)
     values (?, ?, ?, 'admin', false, now(), now())`,
    [`m${Date.now().toString(36)}${++nonce}`.slice(0, 16), organizationId, user.user.id],
  );
  return user;
}

/** Resolves once the renderer has emitted `event` `count` more times, with their details. */
function nextEvents(event: 'queued' | 'started' | 'dropped', count: number) {
  const seen: Array<{ id: number; userId: string | undefined }> = [];
  return new Promise<typeof seen>((resolve) => {
    const listener = (detail: (typeof seen)[number]) => {
      seen.push(detail);
      if (seen.length < count) return;
      briefRenderer.events.off(event, listener);
      resolve(seen);
    };
    briefRenderer.events.on(event, listener);
  });
}

const createCollab = (organizationId: string, user: TestUser, text: string) =>
  server.post(`/organizations/${organizationId}/collabs.json`, {
    token: user.token,
    body: { collab: { brief: brief(text) } },
  });

/** A request queued for rendering: sent, and resolved once the renderer has it. */
async function queued<T>(send: () => Promise<T>): Promise<{ response: Promise<T> }> {
  const seen = nextEvents('queued', 1);
  const response = send();
  await seen;
  return { response };
}

const collabCount = async (organizationId: string) =>
  (
    await server.sql<{ count: number }>(
      'select count(*)::int as count from collabs where organization_id = ?',
      [organizationId],
    )
  )[0]?.count;

describe('fair share of the brief renderer', () => {
  it("refuses a user's brief past the per-user limit with 503, while another user's is accepted", async () => {
    briefRenderer.hold(true);
    const waiting = [];
    for (let i = 0; i < BRIEF_RENDERS_PER_USER; i++)
      waiting.push(await queued(() => createCollab(org.id, org.admin, `A${i}`)));

    const over = await createCollab(org.id, org.admin, 'A over');
    expect(over.statusCode).toBe(503);
    expect(over.headers['retry-after']).toBe('1');
    expect(over.json()).toEqual({ error: 'Service temporarily unavailable' });

    const other = await queued(() => createCollab(org.outsiderOrganizationId, org.outsider, 'B'));
    expect(briefRenderer.stats()).toEqual({
      queued: BRIEF_RENDERS_PER_USER + 1,
      rendering: 0,
      users: 2,
      organizations: 2,
    });

    briefRenderer.hold(false);
    for (const { response } of waiting) expect((await response).statusCode).toBe(201);
    expect((await other.response).statusCode).toBe(201);
    expect(await collabCount(org.id)).toBe(BRIEF_RENDERS_PER_USER);
    expect(await collabCount(org.outsiderOrganizationId)).toBe(1);
    expect(briefRenderer.stats()).toEqual({ queued: 0, rendering: 0, users: 0, organizations: 0 });
  });

  it("refuses an organization's brief past the per-organization limit, while another organization's is accepted", async () => {
    const admins = [org.admin];
    while (admins.length * BRIEF_RENDERS_PER_USER < BRIEF_RENDERS_PER_ORGANIZATION)
      admins.push(await addAdmin(org.id));
    const last = await addAdmin(org.id);
    briefRenderer.hold(true);
    const waiting = [];
    for (const admin of admins)
      for (let i = 0; i < BRIEF_RENDERS_PER_USER; i++)
        waiting.push(await queued(() => createCollab(org.id, admin, `${admin.user.id} ${i}`)));

    const over = await createCollab(org.id, last, 'one more in the organization');
    expect(over.statusCode).toBe(503);
    expect(over.headers['retry-after']).toBe('1');
    const other = await queued(() => createCollab(org.outsiderOrganizationId, org.outsider, 'elsewhere'));

    briefRenderer.hold(false);
    for (const { response } of waiting) expect((await response).statusCode).toBe(201);
    expect((await other.response).statusCode).toBe(201);
    expect(await collabCount(org.id)).toBe(BRIEF_RENDERS_PER_ORGANIZATION);
    expect(briefRenderer.stats()).toEqual({ queued: 0, rendering: 0, users: 0, organizations: 0 });
  });

  it('serves users round-robin: A1 A2 A3 B1 queued, B1 is rendered second', async () => {
    const b = await addAdmin(org.id);
    briefRenderer.hold(true);
    const waiting = [];
    for (const [user, name] of [
      [org.admin, 'A1'],
      [org.admin, 'A2'],
      [org.admin, 'A3'],
      [b, 'B1'],
    ] as const)
      waiting.push(await queued(() => createCollab(org.id, user, name)));

    const started = nextEvents('started', 4);
    briefRenderer.hold(false);
    const order = (await started).map(({ userId }) => (userId === b.user.id ? 'B' : 'A'));
    expect(order).toEqual(['A', 'B', 'A', 'A']);
    for (const { response } of waiting) expect((await response).statusCode).toBe(201);
    expect(briefRenderer.stats()).toEqual({ queued: 0, rendering: 0, users: 0, organizations: 0 });
  });

  it('drops a brief whose client has gone away while it waited, and stores nothing', async () => {
    const created = (await createCollab(org.id, org.admin, 'Before')).json();
    const url = `/organizations/${org.id}/collabs/${created.id}.json`;
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = server.app.server.address() as AddressInfo;

    briefRenderer.hold(true);
    const seen = nextEvents('queued', 1);
    const client = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'PATCH',
      path: url,
      headers: { authorization: `Bearer ${org.admin.token}`, 'content-type': 'application/json' },
    });
    client.on('error', () => {});
    client.end(JSON.stringify({ collab: { name: 'Gone', brief: brief('Gone') } }));
    await seen;
    const dropped = nextEvents('dropped', 1);
    client.destroy();
    await dropped;
    expect(briefRenderer.stats()).toEqual({ queued: 0, rendering: 0, users: 0, organizations: 0 });

    briefRenderer.hold(false);
    // The same user's next write is rendered and stored; the dropped one never is.
    const after = await server.patch(url, { token: org.admin.token, body: { collab: { brief: 'After' } } });
    expect(after.statusCode).toBe(200);
    expect(await server.sql('select name, brief from collabs')).toEqual([
      { name: created.name, brief: 'After' },
    ]);
  });

  it('discards a rendering whose client went away while it rendered', async () => {
    const aborted = new AbortController();
    const started = once(briefRenderer.events, 'started').then(() => aborted.abort());
    const rendering = renderBrief(brief('abandoned'), 1_000, { userId: 'u', signal: aborted.signal });
    await started;
    await expect(rendering).rejects.toMatchObject({ statusCode: 503 });
    expect(briefRenderer.stats()).toEqual({ queued: 0, rendering: 0, users: 0, organizations: 0 });
  });
});

describe('the role is checked again after the brief waited', () => {
  it.each([
    ['removed', 404, 'delete from memberships where user_id = ?', { error: 'Not found' }],
    [
      'demoted to member',
      403,
      "update memberships set role = 'member' where user_id = ?",
      { error: 'You are not allowed to perform this action' },
    ],
  ] as const)(
    'an admin %s while its PATCH waited gets %i, and nothing is written',
    async (_, status, change, body) => {
      const admin = await addAdmin(org.id);
      const created = (await createCollab(org.id, admin, 'Before')).json();
      const url = `/organizations/${org.id}/collabs/${created.id}.json`;
      const before = await server.sql('select name, brief, brief_html from collabs');

      briefRenderer.hold(true);
      const patch = await queued(() =>
        server.patch(url, {
          token: admin.token,
          body: { collab: { name: 'Renamed', brief: brief('After') } },
        }),
      );
      await server.sql(change, [admin.user.id]);
      briefRenderer.hold(false);
      const res = await patch.response;
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual(body);
      expect(await server.sql('select name, brief, brief_html from collabs')).toEqual(before);
    },
  );

  it('an admin removed while its create waited gets 404, and no row is inserted', async () => {
    const admin = await addAdmin(org.id);
    briefRenderer.hold(true);
    const create = await queued(() => createCollab(org.id, admin, 'New'));
    await server.sql('delete from memberships where user_id = ?', [admin.user.id]);
    briefRenderer.hold(false);
    expect((await create.response).statusCode).toBe(404);
    expect(await collabCount(org.id)).toBe(0);
  });

  it('a campaign PATCH by an admin demoted while it waited is 403, and nothing is written', async () => {
    const admin = await addAdmin(org.id);
    const created = (
      await server.post(`/organizations/${org.id}/campaigns.json`, {
        token: admin.token,
        body: { campaign: { brief: brief('Before') } },
      })
    ).json();
    const before = await server.sql('select name, brief from campaigns');
    briefRenderer.hold(true);
    const patch = await queued(() =>
      server.patch(`/organizations/${org.id}/campaigns/${created.id}.json`, {
        token: admin.token,
        body: { campaign: { name: 'Renamed', brief: brief('After') } },
      }),
    );
    await server.sql("update memberships set role = 'member' where user_id = ?", [admin.user.id]);
    briefRenderer.hold(false);
    expect((await patch.response).statusCode).toBe(403);
    expect(await server.sql('select name, brief from campaigns')).toEqual(before);
  });
});
