/**
 * Headers of one's own (issue #29): `defaultHeaders` on the client, `headers` per call over them
 * (`null` leaves one out), on every kind of call — a show, a list and each of its pages, a write,
 * a transition and its re-read, a retry. The headers the SDK sets itself are refused with the
 * option to use instead.
 */
import { HttpResponse, http } from 'msw';
import { describe, expect, test } from 'vitest';
import { ClientOptionError } from '../src/index.js';
import {
  BASE,
  COLLAB_ID,
  client,
  collab,
  mockServer,
  ORG_ID,
  organization,
  organizations,
  pageOf,
  pageParam,
  recordRequests,
  TOKEN,
} from './fixtures.js';

const server = mockServer();
const seen = recordRequests(server);
const header = (name: string) => seen.map((r) => r.headers.get(name));

describe('defaultHeaders', () => {
  test('go with every request: a show, each page of a list, a write, a transition and its re-read', async () => {
    server.use(
      http.get(`${BASE}/organizations/${ORG_ID}.json`, () => HttpResponse.json(organization)),
      http.get(`${BASE}/organizations.json`, ({ request }) => pageOf(organizations(25), pageParam(request))),
      http.post(`${BASE}/organizations.json`, () => HttpResponse.json(organization, { status: 201 })),
      http.post(
        `${BASE}/organizations/${ORG_ID}/collabs/${COLLAB_ID}/submit.json`,
        () => new HttpResponse(null, { status: 303, headers: { Location: `${BASE}/x` } }),
      ),
      http.get(`${BASE}/organizations/${ORG_ID}/collabs/${COLLAB_ID}.json`, () => HttpResponse.json(collab)),
    );
    const c = client({ defaultHeaders: { 'X-Gateway-Key': 'gw-1', 'X-Tenant': 'acme' } });
    await c.organizations.retrieve(ORG_ID);
    expect(await c.organizations.list().toArray()).toHaveLength(25);
    await c.organizations.create({ name: 'Acme' });
    await c.collabs.submit(ORG_ID, COLLAB_ID);
    expect(seen).toHaveLength(6);
    expect(header('x-gateway-key')).toEqual(Array(6).fill('gw-1'));
    expect(header('x-tenant')).toEqual(Array(6).fill('acme'));
    // The SDK's own headers are still its own.
    expect(header('authorization')).toEqual(Array(6).fill(`Bearer ${TOKEN}`));
    expect(header('accept')).toEqual(Array(6).fill('application/json'));
  });

  test('go with every attempt of a retried call', async () => {
    let attempts = 0;
    server.use(
      http.get(`${BASE}/organizations/${ORG_ID}.json`, () =>
        ++attempts < 3 ? HttpResponse.json({ error: 'x' }, { status: 503 }) : HttpResponse.json(organization),
      ),
    );
    await client({ defaultHeaders: { 'X-Gateway-Key': 'gw-1' } }).organizations.retrieve(ORG_ID);
    expect(header('x-gateway-key')).toEqual(['gw-1', 'gw-1', 'gw-1']);
  });

  test('an undefined value (an unset environment variable) is not sent, and type-checks', async () => {
    server.use(http.get(`${BASE}/organizations/${ORG_ID}.json`, () => HttpResponse.json(organization)));
    const unset: string | undefined = process.env.MARKETPLACE_TEST_UNSET_HEADER;
    expect(unset).toBeUndefined();
    await client({ defaultHeaders: { 'X-Gateway-Key': unset, 'X-Tenant': 'acme' } }).organizations.retrieve(
      ORG_ID,
    );
    expect(header('x-gateway-key')).toEqual([null]);
    expect(header('x-tenant')).toEqual(['acme']);
  });

  test('are kept by withOptions', async () => {
    server.use(http.get(`${BASE}/organizations/${ORG_ID}.json`, () => HttpResponse.json(organization)));
    const c = client({ defaultHeaders: { 'X-Gateway-Key': 'gw-1' } }).withOptions({ maxRetries: 0 });
    await c.organizations.retrieve(ORG_ID);
    expect(header('x-gateway-key')).toEqual(['gw-1']);
  });
});

describe('headers per call', () => {
  test('add to the defaults, replace one of the same name (any case), or leave one out with null', async () => {
    server.use(http.get(`${BASE}/organizations/${ORG_ID}.json`, () => HttpResponse.json(organization)));
    const c = client({ defaultHeaders: { 'X-Gateway-Key': 'gw-1', 'X-Tenant': 'acme' }, cache: false });
    await c.organizations.retrieve(ORG_ID, { headers: { traceparent: '00-abc-01', 'x-tenant': 'globex' } });
    await c.organizations.retrieve(ORG_ID, { headers: { 'X-Gateway-Key': null } });
    expect(header('traceparent')).toEqual(['00-abc-01', null]);
    expect(header('x-tenant')).toEqual(['globex', 'acme']);
    expect(header('x-gateway-key')).toEqual(['gw-1', null]);
  });

  test('an undefined value is as if the header were not named: the default stays', async () => {
    server.use(http.get(`${BASE}/organizations/${ORG_ID}.json`, () => HttpResponse.json(organization)));
    const unset: string | undefined = process.env.MARKETPLACE_TEST_UNSET_HEADER;
    await client({ defaultHeaders: { 'X-Tenant': 'acme' }, cache: false }).organizations.retrieve(ORG_ID, {
      headers: { 'X-Tenant': unset, 'X-Run': unset },
    });
    expect(header('x-tenant')).toEqual(['acme']);
    expect(header('x-run')).toEqual([null]);
  });

  test('go with every page of a list', async () => {
    server.use(
      http.get(`${BASE}/organizations.json`, ({ request }) => pageOf(organizations(45), pageParam(request))),
    );
    await client()
      .organizations.list({}, { headers: { 'X-Run': 'r1' }, concurrency: 2 })
      .toArray();
    expect(header('x-run')).toEqual(['r1', 'r1', 'r1']);
  });
});

describe('headers HTTP cannot carry', () => {
  const NAME =
    'has an invalid header name "X Gateway": a name is one word of letters, digits and !#$%&\'*+-.^_`|~';
  const VALUE =
    "X-Gateway-Key's value holds a character an HTTP header cannot carry (a line break, a control character or one above U+00FF)";

  test.each([
    ['an invalid name', { 'X Gateway': 'abc' }, NAME],
    ['a line break inside a value', { 'X-Gateway-Key': 'secret-1\nsecret-2' }, VALUE],
    ['a control character in a value', { 'X-Gateway-Key': 'secret\u0001' }, VALUE],
    ['a character above U+00FF in a value', { 'X-Gateway-Key': 'secret✓' }, VALUE],
  ])(
    '%s: refused by the constructor (ClientOptionError) and by a call, without the value',
    async (_what, headers, problem) => {
      let error: unknown;
      try {
        client({ defaultHeaders: headers });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ClientOptionError);
      expect(error).toMatchObject({
        option: 'defaultHeaders',
        message: `Marketplace: \`defaultHeaders\` ${problem}`,
      });
      expect((error as Error).message).not.toContain('secret');
      const call = client()
        .organizations.retrieve(ORG_ID, { headers })
        .catch((e: unknown) => e);
      await expect(call).resolves.toBeInstanceOf(TypeError);
      await expect(call).resolves.toMatchObject({ message: `Marketplace: \`headers\` ${problem}` });
      expect(seen).toHaveLength(0);
    },
  );

  test('a value’s surrounding whitespace (a trailing newline) is taken: fetch trims it', async () => {
    server.use(http.get(`${BASE}/organizations/${ORG_ID}.json`, () => HttpResponse.json(organization)));
    await client({ defaultHeaders: { 'X-Gateway-Key': 'abc\n' } }).organizations.retrieve(ORG_ID);
    expect(header('x-gateway-key')).toEqual(['abc']);
  });
});

describe('the headers the SDK sets itself', () => {
  test.each([
    ['Authorization', '`token`'],
    ['accept', 'none'],
    ['User-Agent', '`userAgent`'],
    ['If-None-Match', '`cache`'],
    ['Idempotency-Key', '`idempotencyKey`'],
    ['Content-Type', 'none'],
  ])('%s is refused, naming the option (%s)', async (name, option) => {
    expect(() => client({ defaultHeaders: { [name]: 'x' } })).toThrow(
      new RegExp(`\`defaultHeaders\` cannot set ${name}.*${option.replace(/`/g, '.')}`),
    );
    await expect(client().organizations.retrieve(ORG_ID, { headers: { [name]: 'x' } })).rejects.toThrow(
      `\`headers\` cannot set ${name}`,
    );
    expect(seen).toHaveLength(0);
  });

  test('a header named like an object property is a header like any other', async () => {
    server.use(http.get(`${BASE}/organizations/${ORG_ID}.json`, () => HttpResponse.json(organization)));
    await client({
      defaultHeaders: { constructor: 'c' },
    }).organizations.retrieve(ORG_ID, { headers: { toString: 't', hasOwnProperty: 'h' } });
    expect(header('constructor')).toEqual(['c']);
    expect(header('tostring')).toEqual(['t']);
    expect(header('hasownproperty')).toEqual(['h']);
  });
});
