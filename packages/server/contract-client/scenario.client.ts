/**
 * A client generated from the committed `openapi.json` by openapi-typescript (`api.d.ts`, written
 * by `pnpm test:client`) and openapi-fetch, as an integrator in another codebase would make it:
 * type-checked against the document, then run against the server.
 */

import { startTestServer, type TestServer } from '@app/testing';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components, paths } from './api.js';

type Organization = components['schemas']['Organization'];

const HELPERS_KEY = 'contract-client-helpers-key-0123456789';
let server: TestServer;
let url: string;
let client: ReturnType<typeof createClient<paths>>;

beforeAll(async () => {
  server = await startTestServer({ helpersKey: HELPERS_KEY });
  url = server.url;
  // The test helpers are not in the published document: a plain request makes the user.
  const created = await fetch(`${url}/test_helpers/users.json`, {
    method: 'POST',
    headers: { authorization: `Bearer ${HELPERS_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ user: { name: 'Gen Client', email: 'gen.client@example.com' } }),
  });
  const { access_token } = (await created.json()) as { access_token: { token: string } };
  client = createClient<paths>({ baseUrl: url, headers: { authorization: `Bearer ${access_token.token}` } });
});

afterAll(async () => {
  await server?.close();
});

describe('a client generated from openapi.json (openapi-typescript + openapi-fetch)', () => {
  let org: Organization;

  it('creates and lists organizations with the generated types', async () => {
    const created = await client.POST('/organizations.json', {
      body: { organization: { name: 'Generated Co', privacy_setting: 'public' } },
    });
    expect(created.response.status).toBe(201);
    org = created.data as Organization;
    expect(org.name).toBe('Generated Co');

    const listed = await client.GET('/organizations.json', { params: { query: { page: 1 } } });
    expect(listed.response.status).toBe(200);
    expect(listed.data?.map((o) => o.id)).toEqual([org.id]);
    expect(listed.response.headers.get('Total-Count')).toBe('1');
  });

  it('reads a 422 as the ValidationErrors body', async () => {
    const refused = await client.POST('/organizations.json', { body: { organization: { name: '' } } });
    expect(refused.response.status).toBe(422);
    expect(refused.error).toEqual({ errors: { name: ["can't be blank"] } });
  });

  it('reads a 404 as the Error body', async () => {
    const missing = await client.GET('/organizations/{id}.json', {
      params: { path: { id: 'nosuchorganization' } },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toEqual({ error: 'Not found' });
  });

  it('sends If-None-Match as documented and gets a 304', async () => {
    const first = await client.GET('/organizations/{id}.json', { params: { path: { id: org.id } } });
    const etag = first.response.headers.get('ETag');
    expect(etag).toMatch(/^W\//);
    const again = await client.GET('/organizations/{id}.json', {
      params: { path: { id: org.id }, header: { 'If-None-Match': etag ?? '' } },
    });
    expect(again.response.status).toBe(304);
  });
});
