/**
 * The endpoint table's declarations are what the server does, endpoint by endpoint: a 404 has an
 * empty body exactly where `emptyNotFound` says so; the organization whose membership decides
 * access is the one `organizationParam` names. (Scope and access: the authorization matrix;
 * transition targets: transitions.test.ts.)
 */
import { buildPath, publicEndpoints } from '@app/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from './harness.js';

const server = useTestServer({}, {}, { keepData: true });
let owner: { token: string };
let orgId: string;

beforeAll(async () => {
  owner = await server.createUser();
  orgId = (
    await server.post('/organizations.json', { token: owner.token, body: { organization: { name: 'A' } } })
  ).json().id;
});

const UNKNOWN = 'unknownid0000000';

/** The endpoint's URL in the caller's organization, with an id that names nothing. */
function urlOfUnknown(path: string) {
  const params: Record<string, string> = {};
  for (const [, name] of path.matchAll(/:([a-z_]+)/g))
    params[name as string] = name === 'organization_id' ? orgId : UNKNOWN;
  if (path === '/organizations/:id') params.id = UNKNOWN;
  return buildPath(path, params);
}

describe('emptyNotFound', () => {
  const reads = publicEndpoints.filter((e) => e.method === 'GET' && !e.paginated);
  it.each(reads.map((e) => [e.name, e] as const))('%s: a 404 body matches the declaration', async (_, e) => {
    const res = await server.get(urlOfUnknown(e.path), { token: owner.token });
    if (e.path === '/me/notification_settings') return expect(res.statusCode).toBe(200);
    expect(res.statusCode).toBe(404);
    if (e.emptyNotFound) expect(res.body).toBe('');
    else expect(res.json()).toEqual({ error: 'Not found' });
  });

  it('is declared on GET /me/address.json only', () => {
    expect(publicEndpoints.filter((e) => e.emptyNotFound).map((e) => `${e.method} ${e.path}`)).toEqual([
      'GET /me/address',
    ]);
  });
});

describe('organizationParam', () => {
  it.each(publicEndpoints.filter((e) => e.organizationParam).map((e) => [e.name, e] as const))(
    '%s: a user who is no member of that organization gets 404 before anything else',
    async (_, e) => {
      const stranger = await server.createUser();
      const path = e.path.replace(`:${e.organizationParam}`, orgId);
      const url = buildPath(
        path,
        Object.fromEntries([...path.matchAll(/:([a-z_]+)/g)].map((m) => [m[1], UNKNOWN])),
      );
      const res = await server.request(e.method, url, {
        token: stranger.token,
        body: e.body ? {} : undefined,
      });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Not found' });
    },
  );

  it('names the organization of every organization-scoped path, and nothing else', () => {
    for (const e of publicEndpoints) {
      const scoped = e.path.startsWith('/organizations/:');
      expect(e.organizationParam !== null, e.path).toBe(scoped);
    }
  });
});
