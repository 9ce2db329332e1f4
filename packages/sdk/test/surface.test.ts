import { readFileSync } from 'node:fs';
import {
  type AccessTokenId,
  type Endpoint,
  type NamedEndpoint,
  PAGINATION_HEADERS,
  publicEndpoints,
  testHelperEndpointList,
  type UserId,
} from '@app/schemas';
import { HttpResponse, http } from 'msw';
import { describe, expect, test } from 'vitest';
import * as sdk from '../src/index.js';
import { Marketplace, MarketplaceError } from '../src/index.js';
import {
  accessToken,
  address,
  BASE,
  CAMPAIGN_ID,
  COLLAB_ID,
  campaign,
  client,
  collab,
  MEMBERSHIP_ID,
  membership,
  mockServer,
  notification,
  notificationSettings,
  ORG_ID,
  organization,
  SOCIAL_ACCOUNT_ID,
  socialAccount,
  TOKEN,
} from './fixtures.js';

const server = mockServer();
const HELPERS_KEY = 'test-helpers-key-0123456789abcdefghij';
const USER_ID = 'Us3r1dAbCdEf' as UserId;
const at = '2026-11-21T10:15:30.123Z';

/** One call per endpoint of the table, through the SDK's public methods (decisions.md §5). */
const calls: Record<string, (c: Marketplace) => Promise<unknown>> = {
  'organizations.list': (c) => c.organizations.list({ page: 1 }).then((p) => p.data),
  'organizations.retrieve': (c) => c.organizations.retrieve(ORG_ID),
  'organizations.create': (c) => c.organizations.create({ name: 'Acme' }),
  'organizations.update': (c) => c.organizations.update(ORG_ID, { name: 'Acme 2' }),
  'organizations.delete': (c) => c.organizations.delete(ORG_ID),
  'collabs.list': (c) => c.collabs.list(ORG_ID).then((p) => p.data),
  'collabs.retrieve': (c) => c.collabs.retrieve(ORG_ID, COLLAB_ID),
  'collabs.create': (c) => c.collabs.create(ORG_ID, { name: 'Launch' }, { website: 'https://shop.example' }),
  'collabs.update': (c) => c.collabs.update(ORG_ID, COLLAB_ID, { brief: '# Hi' }),
  'collabs.delete': (c) => c.collabs.delete(ORG_ID, COLLAB_ID),
  'collabs.submit': (c) => c.collabs.submit(ORG_ID, COLLAB_ID),
  'collabs.pause': (c) => c.collabs.pause(ORG_ID, COLLAB_ID),
  'collabs.unpause': (c) => c.collabs.unpause(ORG_ID, COLLAB_ID),
  'campaigns.list': (c) => c.campaigns.list(ORG_ID).then((p) => p.data),
  'campaigns.retrieve': (c) => c.campaigns.retrieve(ORG_ID, CAMPAIGN_ID),
  'campaigns.create': (c) => c.campaigns.create(ORG_ID, { name: 'Reels', cpm_amount: 250 }),
  'campaigns.update': (c) => c.campaigns.update(ORG_ID, CAMPAIGN_ID, { platform_ids: ['youtube'] }),
  'campaigns.delete': (c) => c.campaigns.delete(ORG_ID, CAMPAIGN_ID),
  'campaigns.publish': (c) => c.campaigns.publish(ORG_ID, CAMPAIGN_ID),
  'campaigns.pause': (c) => c.campaigns.pause(ORG_ID, CAMPAIGN_ID),
  'campaigns.resume': (c) => c.campaigns.resume(ORG_ID, CAMPAIGN_ID),
  'members.list': (c) => c.members.list(ORG_ID).then((p) => p.data),
  'members.update': (c) => c.members.update(ORG_ID, MEMBERSHIP_ID, { role: 'member' }),
  'members.delete': (c) => c.members.delete(ORG_ID, MEMBERSHIP_ID),
  'socialAccounts.list': (c) => c.me.socialAccounts.list().then((p) => p.data),
  'socialAccounts.retrieve': (c) => c.me.socialAccounts.retrieve(SOCIAL_ACCOUNT_ID),
  'socialAccounts.create': (c) =>
    c.me.socialAccounts.create({ platform_id: 'x', account_url: 'https://x.com/acme' }),
  'socialAccounts.delete': (c) => c.me.socialAccounts.delete(SOCIAL_ACCOUNT_ID),
  'address.retrieve': (c) => c.me.address.retrieve(),
  'address.update': (c) => c.me.address.update({ city: 'Paris' }),
  'address.delete': (c) => c.me.address.delete(),
  'notificationSettings.retrieve': (c) => c.me.notificationSettings.retrieve(),
  'notificationSettings.update': (c) =>
    c.me.notificationSettings.update({ push_notifications_enabled: true }),
  'notifications.list': (c) => c.me.notifications.list().then((p) => p.data),
  'accessTokens.list': (c) => c.me.accessTokens.list().then((p) => p.data),
  'accessTokens.create': (c) => c.me.accessTokens.create({ description: 'CI', permission: 'read' }),
  'accessTokens.delete': (c) => c.me.accessTokens.delete('T0ken1dQwErt' as AccessTokenId),
  'testHelpers.createUser': (c) =>
    c.testHelpers.createUser({ user: { name: 'Bo', email: 'bo@example.com' } }),
  'testHelpers.addMember': (c) => c.testHelpers.addMember(ORG_ID, { user_id: USER_ID, role: 'member' }),
  'testHelpers.createJoinRequest': (c) => c.testHelpers.createJoinRequest(ORG_ID, { user_id: USER_ID }),
  'testHelpers.setSubscription': (c) => c.testHelpers.setSubscription(ORG_ID, { active: true }),
  'testHelpers.createSubmission': (c) => c.testHelpers.createSubmission(ORG_ID, COLLAB_ID),
  'testHelpers.setCollabState': (c) =>
    c.testHelpers.setCollabState(ORG_ID, COLLAB_ID, { state: 'published' }),
  'testHelpers.createFunding': (c) => c.testHelpers.createFunding(ORG_ID, CAMPAIGN_ID, { amount: 10_000 }),
  'testHelpers.setCampaignStatus': (c) =>
    c.testHelpers.setCampaignStatus(ORG_ID, CAMPAIGN_ID, { status: 'active' }),
  'testHelpers.syncSocialAccount': (c) =>
    c.testHelpers.syncSocialAccount(SOCIAL_ACCOUNT_ID, { subscriber_count: 5 }),
  'testHelpers.createNotification': (c) =>
    c.testHelpers.createNotification(USER_ID, { type: 'X', record_type: 'Y', record_id: 'z' }),
  'testHelpers.createPushSubscription': (c) => c.testHelpers.createPushSubscription(USER_ID),
  'testHelpers.reset': (c) => c.testHelpers.reset(),
};

/** Any response body a schema of the table may ask for; the server mock picks the one that fits. */
const bodies: unknown[] = [
  organization,
  collab,
  campaign,
  membership,
  socialAccount,
  address,
  notification,
  notificationSettings,
  { ...accessToken, token: 'mkt_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG' },
  {
    user: membership.user,
    access_token: { ...accessToken, token: 'mkt_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG' },
  },
  { id: 'J01nReq1dXyz', user_id: USER_ID, organization_id: ORG_ID, created_at: at },
  { id: 'Sub1', amount: 10_000, created_at: at },
  { id: 'Sub1', created_at: at },
  { active: true },
  { id: 'push1' },
];

function bodyFor(endpoint: Endpoint): unknown {
  const schema = endpoint.response;
  if (schema === undefined) return undefined;
  const body = bodies.find((b) => schema.safeParse(endpoint.paginated ? [b] : b).success);
  if (body === undefined)
    throw new Error(`No fixture fits the response of ${endpoint.method} ${endpoint.path}`);
  return endpoint.paginated ? [body] : body;
}

const pattern = (e: Endpoint) => new RegExp(`^${e.path.replace(/:[a-z_]+/g, '[^/]+')}\\.json$`);
const table: readonly NamedEndpoint[] = [...publicEndpoints, ...testHelperEndpointList];

/** Serves the whole table from its own description, recording what each request looked like. */
function serveTable() {
  const requests: { endpoint: string; method: string; path: string; headers: Headers; search: string }[] = [];
  server.use(
    http.all(`${BASE}/*`, ({ request }) => {
      const url = new URL(request.url);
      const endpoint = table.find((e) => e.method === request.method && pattern(e).test(url.pathname));
      if (!endpoint) return HttpResponse.json({ error: 'Not found' }, { status: 404 });
      requests.push({
        endpoint: endpoint.name,
        method: request.method,
        path: url.pathname,
        headers: request.headers,
        search: url.search,
      });
      if (endpoint.status === 303)
        return new HttpResponse(null, {
          status: 303,
          headers: { Location: url.pathname.replace(/\.json$/, '') },
        });
      if (endpoint.status === 204) return new HttpResponse(null, { status: 204 });
      const headers: Record<string, string> = endpoint.paginated
        ? {
            [PAGINATION_HEADERS.currentPage]: '1',
            [PAGINATION_HEADERS.pageItems]: '20',
            [PAGINATION_HEADERS.totalCount]: '1',
            [PAGINATION_HEADERS.totalPages]: '1',
          }
        : {};
      return Response.json(bodyFor(endpoint), { status: endpoint.status, headers });
    }),
  );
  return requests;
}

describe('every endpoint of the table has its method', () => {
  test('and no method exists without an endpoint', () => {
    expect(Object.keys(calls).sort()).toEqual(table.map((e) => e.name).sort());
  });

  test.each(table.map((e) => ({ name: e.name, endpoint: e })))('$name', async ({ name, endpoint }) => {
    const requests = serveTable();
    const result = await (calls[name] as (c: Marketplace) => Promise<unknown>)(
      client({ testHelpersKey: HELPERS_KEY }),
    );

    const [sent, reread] = requests;
    expect(sent).toMatchObject({ endpoint: name, method: endpoint.method });
    expect(sent?.path).toMatch(pattern(endpoint));
    if (endpoint.status === 303) expect(reread?.method).toBe('GET');
    else expect(requests).toHaveLength(1);
    expect(result === undefined).toBe(endpoint.response === undefined && endpoint.status !== 303);

    const credential = endpoint.access === 'test-helpers' ? HELPERS_KEY : TOKEN;
    expect(sent?.headers.get('authorization')).toBe(`Bearer ${credential}`);
    expect(sent?.headers.get('accept')).toBe('application/json');
    expect(sent?.headers.get('user-agent')).toMatch(/^marketplace-sdk\/\d+\.\d+\.\d+ node\/\d+/);
  });
});

describe('client options', () => {
  test('userAgent goes in front of the SDK’s product token', async () => {
    const requests = serveTable();
    await client({ userAgent: 'acme-sync/2.3' }).organizations.retrieve(ORG_ID);
    expect(requests[0]?.headers.get('user-agent')).toMatch(/^acme-sync\/2\.3 marketplace-sdk\//);
  });

  test('baseUrl may carry a path prefix', async () => {
    let path = '';
    server.use(
      http.get(`${BASE}/api/v1/organizations/:id`, ({ request }) => {
        path = new URL(request.url).pathname;
        return HttpResponse.json(organization);
      }),
    );
    await client({ baseUrl: `${BASE}/api/v1/` }).organizations.retrieve(ORG_ID);
    expect(path).toBe(`/api/v1/organizations/${ORG_ID}.json`);
  });

  test('path parameters are URL-encoded', async () => {
    let path = '';
    server.use(
      http.get(`${BASE}/organizations/:id`, ({ request }) => {
        path = new URL(request.url).pathname;
        return HttpResponse.json(organization);
      }),
    );
    await client().organizations.retrieve('a/b c' as typeof ORG_ID);
    expect(path).toBe('/organizations/a%2Fb%20c.json');
  });

  test('token and baseUrl are required; numbers are checked', () => {
    expect(() => new Marketplace({ token: '', baseUrl: BASE })).toThrow(/token/);
    expect(() => new Marketplace({ token: TOKEN, baseUrl: '' })).toThrow(/baseUrl/);
    expect(() => new Marketplace({ token: TOKEN, baseUrl: BASE, maxRetries: -1 })).toThrow(RangeError);
    expect(() => new Marketplace({ token: TOKEN, baseUrl: BASE, timeout: 1.5 })).toThrow(RangeError);
  });

  test('the test helpers need their key, and say so before sending', async () => {
    const requests = serveTable();
    await expect(client().testHelpers.createPushSubscription(USER_ID)).rejects.toBeInstanceOf(
      MarketplaceError,
    );
    await client().testHelpers.createPushSubscription(USER_ID, { testHelpersKey: HELPERS_KEY });
    expect(requests.map((r) => r.headers.get('authorization'))).toEqual([`Bearer ${HELPERS_KEY}`]);
  });
});

describe('package', () => {
  test('exports the §5 names', () => {
    for (const name of [
      'Marketplace',
      'MarketplaceError',
      'APIError',
      'BadRequestError',
      'AuthenticationError',
      'PermissionDeniedError',
      'NotFoundError',
      'NotAcceptableError',
      'ValidationError',
      'ServiceUnavailableError',
      'InternalServerError',
      'APIConnectionError',
      'APIConnectionTimeoutError',
      'ResponseValidationError',
      'RequestValidationError',
      'LruCache',
      'Page',
      'PagePromise',
    ])
      expect(sdk, name).toHaveProperty(name);
  });

  test('VERSION matches package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(sdk.VERSION).toBe(pkg.version);
  });

  test('the tests run against the @app/schemas source (the @app/source condition)', () => {
    expect(import.meta.resolve('@app/schemas')).toMatch(/\/schemas\/src\/index\.ts$/);
  });
});

describe('types (checked by tsc; the calls are never made)', () => {
  test('ids are branded per resource, payloads typed by their schema', () => {
    const c = client();
    const unused = [
      // @ts-expect-error an organization id is not a collab id
      () => c.collabs.retrieve(ORG_ID, ORG_ID),
      // @ts-expect-error a plain string is not an id: brand it with OrganizationId.parse()
      () => c.organizations.retrieve('k3J9xQ2mLp7Z'),
      // @ts-expect-error privacy_setting is public, private or restricted
      () => c.organizations.create({ name: 'Acme', privacy_setting: 'secret' }),
      // @ts-expect-error logo is a Blob, a File or the bytes, not a path
      () => c.organizations.create({ name: 'Acme', logo: 'logo.png' }),
      () => c.organizations.create({ name: 'Acme', logo: new Blob([]) }),
      () => c.organizations.create({ name: 'Acme', logo: Buffer.from([]) }),
      () => c.organizations.create({ name: 'Acme', logo: new Uint8Array(new SharedArrayBuffer(8)) }),
      () => c.organizations.create({ name: 'Acme', logo: new ArrayBuffer(8) }),
      // @ts-expect-error a stream is not read: make it a Blob first
      () => c.organizations.create({ name: 'Acme', logo: new Blob([]).stream() }),
    ];
    expect(unused).toHaveLength(9);
  });
});
