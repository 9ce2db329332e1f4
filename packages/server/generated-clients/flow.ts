/**
 * The short flow every generated client runs against the server (`pnpm test:generated-clients`):
 * the openapi-fetch client's (contract-client/) — create, list with its headers, a `422`, a `404`,
 * a `304` — and a transition, whose `303` is not followed and then followed, then a bodiless delete. Each client
 * file gives the calls through its generated functions; the checks are written once, here.
 */
import { startTestServer, type TestServer } from '@app/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** What a generated call answered: its status, its body as the client read it, a header. */
export interface Answer {
  status: number;
  data: unknown;
  header(name: string): string | null;
}

/** The calls of the flow, made through one generated client. */
export interface FlowClient {
  createOrganization(name: string): Promise<Answer>;
  listOrganizations(page: number): Promise<Answer>;
  retrieveOrganization(id: string, ifNoneMatch?: string): Promise<Answer>;
  createCollab(organizationId: string, name: string): Promise<Answer>;
  /** The transition, sent without following its `303`. */
  submitCollab(organizationId: string, id: string): Promise<Answer>;
  /** The transition, its `303` followed as the client does by default, with `Accept: application/json`. */
  submitCollabFollowing(organizationId: string, id: string): Promise<Answer>;
  retrieveCollab(organizationId: string, id: string): Promise<Answer>;
  deleteCollab(organizationId: string, id: string): Promise<Answer>;
}

const HELPERS_KEY = 'generated-clients-helpers-key-0123456789';

/** Runs the flow with the client `connect` makes for the server's origin and a user's token. */
export function describeFlow(name: string, connect: (baseUrl: string, token: string) => FlowClient): void {
  let server: TestServer;
  let client: FlowClient;

  beforeAll(async () => {
    server = await startTestServer({ helpersKey: HELPERS_KEY });
    // The test helpers are not in the published document: a plain request makes the user.
    const created = await fetch(`${server.url}/test_helpers/users.json`, {
      method: 'POST',
      headers: { authorization: `Bearer ${HELPERS_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user: { name: 'Gen Client', email: 'gen.client@example.com' } }),
    });
    const { access_token } = (await created.json()) as { access_token: { token: string } };
    client = connect(server.url, access_token.token);
  });

  afterAll(async () => {
    await server?.close();
  });

  describe(`a client generated from openapi.json: ${name}`, () => {
    let orgId: string;

    it('creates and lists organizations', async () => {
      const created = await client.createOrganization('Generated Co');
      expect(created.status).toBe(201);
      expect(created.data).toMatchObject({ name: 'Generated Co', privacy_setting: 'private' });
      orgId = (created.data as { id: string }).id;
      const listed = await client.listOrganizations(1);
      expect(listed.status).toBe(200);
      expect((listed.data as { id: string }[]).map((o) => o.id)).toEqual([orgId]);
      expect(listed.header('Total-Count')).toBe('1');
    });

    it('reads a 422 as the ValidationErrors body', async () => {
      const refused = await client.createOrganization('');
      expect(refused.status).toBe(422);
      expect(refused.data).toEqual({ errors: { name: ["can't be blank"] } });
    });

    it('reads a 404 as the ErrorBody body', async () => {
      const missing = await client.retrieveOrganization('nosuchorganization');
      expect(missing.status).toBe(404);
      expect(missing.data).toEqual({ error: 'Not found' });
    });

    it('sends If-None-Match as documented and gets a 304', async () => {
      const first = await client.retrieveOrganization(orgId);
      const etag = first.header('ETag');
      expect(etag).toMatch(/^W\//);
      expect((await client.retrieveOrganization(orgId, etag ?? '')).status).toBe(304);
    });

    it('runs a transition: 303 not followed, the resource read again', async () => {
      const collab = await client.createCollab(orgId, 'Launch');
      expect(collab.status).toBe(201);
      const id = (collab.data as { id: string }).id;
      const submitted = await client.submitCollab(orgId, id);
      expect(submitted.status).toBe(303);
      expect(submitted.header('Location')).toBe(
        `${new URL(`/organizations/${orgId}/collabs/${id}`, server.url)}`,
      );
      const shown = await client.retrieveCollab(orgId, id);
      expect(shown.status).toBe(200);
      expect(shown.data).toMatchObject({ id, state: 'submitted_for_review' });
    });

    it('runs a transition whose 303 the client follows: the resource after the change, as the document declares', async () => {
      const id = ((await client.createCollab(orgId, 'Followed')).data as { id: string }).id;
      const submitted = await client.submitCollabFollowing(orgId, id);
      expect(submitted.status).toBe(200);
      expect(submitted.data).toMatchObject({ id, state: 'submitted_for_review' });
    });

    it('deletes a draft (a bodiless write)', async () => {
      const draft = await client.createCollab(orgId, 'Scrap');
      const id = (draft.data as { id: string }).id;
      expect((await client.deleteCollab(orgId, id)).status).toBe(204);
      expect((await client.retrieveCollab(orgId, id)).status).toBe(404);
    });
  });
}
