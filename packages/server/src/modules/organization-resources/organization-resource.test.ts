/*
 * The rules collabs and campaigns share as resources of an organization (find.ts and the role
 * guards): a row is 404 outside its organization, writes are for admins with a write token, only
 * a draft can be deleted, a transition from the wrong state is refused and changes nothing, and of
 * concurrent first transitions exactly one goes through. Each resource's own rules are tested
 * beside it (collabs.test.ts, campaigns.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { createForeign, helperAuth, useOrganization } from '../../../test/fixtures/organization.js';
import { FORBIDDEN, NOT_FOUND } from '../../../test/fixtures/responses.js';
import { type TestServer, useTestServer } from '../../../test/harness.js';

const server = useTestServer();

interface OrganizationResource {
  path: 'collabs' | 'campaigns';
  /** The column and test-helper field of the lifecycle: collabs have a `state`, campaigns a `status`. */
  stateField: 'state' | 'status';
  /** The states after the draft, where a row can no longer be deleted; the first transition leads to the first. */
  liveStates: string[];
  /**
   * Each action of the lifecycle (the first takes a row out of the draft): the states it is refused
   * from, and the message.
   */
  refused: Record<string, [from: string[], message: string]>;
  /** What the first transition needs besides a draft: a campaign is published only with a budget. */
  prepareFirst(server: TestServer, base: string, id: string): Promise<void>;
}

const collabs: OrganizationResource = {
  path: 'collabs',
  stateField: 'state',
  liveStates: ['submitted_for_review', 'published', 'paused'],
  refused: {
    submit: [['published', 'submitted_for_review'], 'must be draft to submit'],
    pause: [['draft', 'paused'], 'must be published to pause'],
    unpause: [['published', 'draft'], 'must be paused to unpause'],
  },
  prepareFirst: async () => {},
};

const campaigns: OrganizationResource = {
  path: 'campaigns',
  stateField: 'status',
  liveStates: ['active', 'paused', 'finished'],
  refused: {
    publish: [['active', 'paused', 'finished'], 'must be draft to publish'],
    pause: [['draft', 'paused', 'finished'], 'must be active to pause'],
    resume: [['draft', 'active', 'finished'], 'must be paused to resume'],
  },
  async prepareFirst(server, base, id) {
    const funded = await server.post(`/test_helpers${base}/${id}/fundings.json`, {
      ...helperAuth,
      body: { funding: { amount: 100 } },
    });
    expect(funded.statusCode).toBe(201);
  },
};

describe.each([collabs, campaigns])('$path of an organization', (resource) => {
  const { path, stateField } = resource;
  const wrapper = path === 'collabs' ? 'collab' : 'campaign';
  const defaultName = `Untitled ${wrapper}`;
  const transitions = Object.keys(resource.refused);
  const [firstTransition] = transitions;
  const [afterFirstTransition] = resource.liveStates;
  const org = useOrganization(server, path);

  async function create() {
    const res = await server.post(`${org.base}.json`, { token: org.admin.token, body: { [wrapper]: {} } });
    expect(res.statusCode).toBe(201);
    return res.json() as { id: string };
  }
  const foreign = () => createForeign(server, org, path);
  const count = async () => (await server.sql<{ n: number }>(`select count(*)::int as n from ${path}`))[0]?.n;
  const stateOf = async (id: string) =>
    (await server.sql<{ state: string }>(`select ${stateField} as state from ${path} where id = ?`, [id]))[0]
      ?.state;
  /** The whole stored row, for "nothing changed" checks. */
  const stored = async (id: string) => (await server.sql(`select * from ${path} where id = ?`, [id]))[0];
  const setState = (id: string, state: string) =>
    server.post(`/test_helpers${org.base}/${id}/${stateField}.json`, {
      ...helperAuth,
      body: { [stateField]: state },
    });

  it("GET is 404 for an unknown id, another organization's row, and non-members", async () => {
    const created = await create();
    const other = await foreign();
    for (const [url, token] of [
      [`${org.base}/nope.json`, org.admin.token],
      [`${org.base}/${other.id}.json`, org.admin.token],
      [`${org.base}/${created.id}.json`, org.outsider.token],
    ] as const) {
      const res = await server.get(url, { token });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(NOT_FOUND);
    }
  });

  it('PATCH is 403 for members, 401 for read tokens, 404 for outsiders and foreign ids', async () => {
    const created = await create();
    const other = await foreign();
    const body = { [wrapper]: { name: 'Changed' } };
    const member = await server.patch(`${org.base}/${created.id}.json`, { token: org.member.token, body });
    expect(member.statusCode).toBe(403);
    expect(member.json()).toEqual(FORBIDDEN);
    expect(
      (await server.patch(`${org.base}/${created.id}.json`, { token: org.readAdmin.token, body })).statusCode,
    ).toBe(401);
    expect(
      (await server.patch(`${org.base}/${created.id}.json`, { token: org.outsider.token, body })).statusCode,
    ).toBe(404);
    const cross = await server.patch(`${org.base}/${other.id}.json`, { token: org.admin.token, body });
    expect(cross.statusCode).toBe(404);
    expect(cross.json()).toEqual(NOT_FOUND);
    expect(await server.sql(`select name from ${path}`)).toEqual([
      { name: defaultName },
      { name: defaultName },
    ]);
  });

  it('DELETE deletes a draft (204, no body); a second DELETE is 404', async () => {
    const created = await create();
    const res = await server.delete(`${org.base}/${created.id}.json`, { token: org.admin.token });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await count()).toBe(0);
    const again = await server.delete(`${org.base}/${created.id}.json`, { token: org.admin.token });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual(NOT_FOUND);
  });

  it.each(resource.liveStates)('DELETE is 403 for a row that is %s', async (state) => {
    const created = await create();
    expect((await setState(created.id, state)).statusCode).toBe(200);
    const res = await server.delete(`${org.base}/${created.id}.json`, { token: org.admin.token });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual(FORBIDDEN);
    expect(await count()).toBe(1);
  });

  it('DELETE is 403 for members, 401 for read tokens, 404 for outsiders and foreign ids', async () => {
    const created = await create();
    const other = await foreign();
    expect(
      (await server.delete(`${org.base}/${created.id}.json`, { token: org.member.token })).statusCode,
    ).toBe(403);
    expect(
      (await server.delete(`${org.base}/${created.id}.json`, { token: org.readAdmin.token })).statusCode,
    ).toBe(401);
    expect(
      (await server.delete(`${org.base}/${created.id}.json`, { token: org.outsider.token })).statusCode,
    ).toBe(404);
    expect((await server.delete(`${org.base}/${other.id}.json`, { token: org.admin.token })).statusCode).toBe(
      404,
    );
    expect(await count()).toBe(2);
  });

  it('transitions are 403 for members, 401 for read tokens, 404 for outsiders, foreign and unknown ids', async () => {
    const created = await create();
    await resource.prepareFirst(server, org.base, created.id);
    const other = await foreign();
    const url = `${org.base}/${created.id}/${firstTransition}.json`;
    const member = await server.post(url, { token: org.member.token });
    expect(member.statusCode).toBe(403);
    expect(member.json()).toEqual(FORBIDDEN);
    expect((await server.post(url, { token: org.readAdmin.token })).statusCode).toBe(401);
    expect((await server.post(url, { token: org.outsider.token })).statusCode).toBe(404);
    const cross = await server.post(`${org.base}/${other.id}/${firstTransition}.json`, {
      token: org.admin.token,
    });
    expect(cross.statusCode).toBe(404);
    expect(cross.json()).toEqual(NOT_FOUND);
    for (const action of transitions) {
      expect(
        (await server.post(`${org.base}/unknown/${action}.json`, { token: org.admin.token })).statusCode,
      ).toBe(404);
    }
    expect(await stateOf(created.id)).toBe('draft');
    expect(await stateOf(other.id)).toBe('draft');
  });

  const refusals = Object.entries(resource.refused).flatMap(([action, [states, message]]) =>
    states.map((from) => [action, from, message] as const),
  );
  it.each(refusals)('%s from %s is 422 on the state and changes nothing', async (action, from, message) => {
    const created = await create();
    await resource.prepareFirst(server, org.base, created.id);
    if (from !== 'draft') await setState(created.id, from);
    const before = await stored(created.id);
    const res = await server.post(`${org.base}/${created.id}/${action}.json`, { token: org.admin.token });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { [stateField]: [message] } });
    expect(await stored(created.id)).toEqual(before);
    expect(await stateOf(created.id)).toBe(from);
  });

  it('lets exactly one of 20 concurrent first transitions through', async () => {
    const created = await create();
    await resource.prepareFirst(server, org.base, created.id);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        server.post(`${org.base}/${created.id}/${firstTransition}.json`, { token: org.admin.token }),
      ),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([303, ...Array(19).fill(422)]);
    expect(await stateOf(created.id)).toBe(afterFirstTransition);
  });
});
