import { acceptsAsIs, type Endpoint, endpoints, type OrganizationId } from '@app/schemas';
import { HttpResponse, http } from 'msw';
import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import { parseResponse, readResponse, validateRequest } from '../src/core/validation.js';
import { type CacheStore, RequestValidationError, ResponseValidationError } from '../src/index.js';
import {
  address,
  BASE,
  client,
  collab,
  MEMBERSHIP_ID,
  mockServer,
  notificationSettings,
  ORG_ID,
  organization,
  recordRequests,
  socialAccount,
} from './fixtures.js';

const server = mockServer();
const seen = recordRequests(server);

/** Runs `call`, expecting it to be refused before any request. */
async function refused(call: Promise<unknown>): Promise<RequestValidationError> {
  const error = await call.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RequestValidationError);
  expect(seen).toHaveLength(0);
  return error as RequestValidationError;
}

/** Serves `method url` and returns the JSON bodies it received (read while handling). */
function capture(method: 'post' | 'patch', url: string, response: object, status = 200) {
  const bodies: unknown[] = [];
  const queries: string[] = [];
  server.use(
    http[method](url, async ({ request }) => {
      queries.push(new URL(request.url).search);
      const text = await request.text();
      bodies.push(text === '' ? undefined : JSON.parse(text));
      return HttpResponse.json(response, { status });
    }),
  );
  return { bodies, queries };
}

describe('payloads are validated before sending', () => {
  test('every broken field is listed, as a 422 would', async () => {
    const error = await refused(client().organizations.create({ name: ' ', website: 'ftp://acme.example' }));
    expect(error.errors).toEqual({ name: ["can't be blank"], website: ['must be an http or https URL'] });
    expect(error.message).toContain("name can't be blank");
  });

  test('cross-field rules apply', async () => {
    const error = await refused(
      client().campaigns.create(ORG_ID, { min_payout_amount: 5000, max_payout_amount: 1000 }),
    );
    expect(error.errors).toEqual({ min_payout_amount: ['must be less than or equal to max_payout_amount'] });
  });

  test('a required payload cannot be left out', async () => {
    const error = await refused(client().members.update(ORG_ID, MEMBERSHIP_ID, {} as never));
    expect(Object.keys(error.errors)).toEqual(['role']);
  });

  test('query parameters are validated', async () => {
    const error = await refused(client().organizations.list({ page: 0 }));
    expect(error.errors).toEqual({ page: ['must be a positive integer'] });
  });

  test('a query key the endpoint does not have is refused, not dropped: options given where the query goes', async () => {
    // Plain JavaScript, options passed one argument early: the key would have been stripped.
    const options = { idempotencyKey: 'order-1' } as never;
    const error = await refused(client().collabs.create(ORG_ID, { name: 'Launch' }, options));
    expect(error.errors).toEqual({
      idempotencyKey: [
        'is not a query parameter of POST /organizations/:organization_id/collabs.json; request options go in the last argument',
      ],
    });
    const list = await refused(client().organizations.list({ page: 2, per_page: 50 } as never));
    expect(list.errors).toEqual({
      per_page: ['is not a query parameter of GET /organizations.json (it takes page)'],
    });
    expect(list.message).toBe(
      'Invalid request: per_page is not a query parameter of GET /organizations.json (it takes page)',
    );
  });

  test('a query key given as undefined is as if not given', async () => {
    const { queries } = capture('post', `${BASE}/organizations/${ORG_ID}/collabs.json`, collab, 201);
    await client().collabs.create(ORG_ID, { name: 'Launch' }, {
      website: undefined,
      timeout: undefined,
    } as never);
    expect(queries).toEqual(['']);
  });

  test('path parameters are validated, with the messages of every other field', async () => {
    const error = await refused(client().organizations.retrieve('' as OrganizationId));
    expect(error.errors).toEqual({ id: ["can't be blank"] });
    const number = await refused(client().organizations.retrieve(5 as unknown as OrganizationId));
    expect(number.errors).toEqual({ id: ['must be a string'] });
  });
});

describe('what is sent is the parsed payload', () => {
  test('normalised values, wrapped in the key', async () => {
    const { bodies } = capture('post', `${BASE}/organizations/${ORG_ID}/collabs.json`, collab, 201);
    await client().collabs.create(ORG_ID, {
      name: '  Launch ',
      currency: 'USD',
      countries: ['us', 'ca', 'us'],
    });
    expect(bodies).toEqual([{ collab: { name: 'Launch', currency: 'usd', countries: ['US', 'CA'] } }]);
  });

  test('a social account URL goes out normalised', async () => {
    const { bodies } = capture('post', `${BASE}/me/social_accounts.json`, socialAccount, 201);
    await client().me.socialAccounts.create({
      platform_id: 'youtube',
      account_url: 'https://www.YouTube.com/@acme/',
    });
    expect(bodies).toEqual([
      { social_account: { platform_id: 'youtube', account_url: 'https://youtube.com/@acme', uid: '@acme' } },
    ]);
  });

  test('an optional payload left out sends no body; the query goes in the URL', async () => {
    const { bodies, queries } = capture('post', `${BASE}/organizations/${ORG_ID}/collabs.json`, collab, 201);
    await client().collabs.create(ORG_ID, undefined, { website: 'https://shop.example/p/1' });
    expect(bodies).toEqual([undefined]);
    expect(queries).toEqual([`?website=${encodeURIComponent('https://shop.example/p/1')}`]);
    expect(seen[0]?.headers.get('content-type')).toBeNull();
  });

  test('the flat payload (notification settings) has no wrapper', async () => {
    const { bodies } = capture('patch', `${BASE}/me/notification_settings.json`, notificationSettings);
    await client().me.notificationSettings.update({ push_notifications_enabled: false });
    expect(bodies).toEqual([{ push_notifications_enabled: false }]);
  });
});

describe('responses are validated with their schema', () => {
  const orgUrl = `${BASE}/organizations/${ORG_ID}.json`;

  test('a missing field is a ResponseValidationError with the issues', async () => {
    const { url: _, ...withoutUrl } = organization;
    server.use(http.get(orgUrl, () => HttpResponse.json(withoutUrl)));
    const error = await client()
      .organizations.retrieve(ORG_ID)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.map((i) => i.path)).toEqual([['url']]);
    expect((error as ResponseValidationError).message).toContain('url:');
  });

  test('a body that is not JSON', async () => {
    server.use(http.get(orgUrl, () => HttpResponse.text('<html>')));
    await expect(client().organizations.retrieve(ORG_ID)).rejects.toThrow(/not JSON/);
  });

  test('a success status other than the endpoint’s', async () => {
    server.use(
      http.post(`${BASE}/organizations.json`, () => HttpResponse.json(organization, { status: 200 })),
    );
    await expect(client().organizations.create({ name: 'Acme' })).rejects.toThrow(/expected 201, got 200/);
  });

  test('a cached body is validated again when a 304 serves it: one its schema refuses is read again, and a 304 to that read (no If-None-Match) is refused', async () => {
    const validators: (string | null)[] = [];
    server.use(
      http.get(orgUrl, ({ request }) => {
        validators.push(request.headers.get('if-none-match'));
        return new HttpResponse(null, { status: 304 });
      }),
    );
    const store: CacheStore = {
      get: () => ({ etag: 'W/"x"', body: { id: 1 } }),
      set: () => {},
      delete: () => {},
    };
    await expect(client({ cache: store }).organizations.retrieve(ORG_ID)).rejects.toBeInstanceOf(
      ResponseValidationError,
    );
    expect(validators).toEqual(['W/"x"', null]);
  });

  test('outputs are typed by their schema: ids are branded, timestamps stay strings', async () => {
    server.use(http.get(orgUrl, () => HttpResponse.json(organization)));
    const org = await client().organizations.retrieve(ORG_ID);
    const id: OrganizationId = org.id;
    expect([id, typeof org.created_at]).toEqual([ORG_ID, 'string']);
  });
});

/** An answer as the client reads it. */
const answer = (status: number, text: string) => ({ status, text, headers: new Headers() });
const ok = answer(200, '');

describe('the fast path of the response check', () => {
  const list = endpoints.collabs.list;
  // A list's items are summaries: without `brief` (zod would strip it, so the fast path says no).
  const { brief: _brief, ...summary } = collab;
  const page = Array.from({ length: 20 }, (_, i) => ({ ...summary, id: `Collab${i}`, name: `Collab ${i}` }));

  test('a valid page is accepted as it is: the body itself is the data, as zod would give it', () => {
    const json = JSON.parse(JSON.stringify(page));
    expect(acceptsAsIs(list.response, json)).toBe(true);
    expect(parseResponse(list, json, ok)).toBe(json);
    expect(list.response.parse(json)).toEqual(json);
    // A page with a `brief` (zod strips it) is left to zod.
    expect(acceptsAsIs(list.response, [collab])).toBe(false);
  });

  test('an invalid body still gets zod’s ResponseValidationError, message and issues', () => {
    const bad = [
      { ...summary, created_at: '2026-13-01T00:00:00Z', extra: 1 },
      { ...summary, countries: 'US' },
    ];
    expect(acceptsAsIs(list.response, bad)).toBe(false);
    const error = (() => {
      try {
        parseResponse(list, bad, ok);
      } catch (e) {
        return e;
      }
    })() as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.message).toBe(
      'GET /organizations/:organization_id/collabs: the response does not match its schema ' +
        '(0.created_at: Invalid ISO datetime; 1.countries: Invalid input: expected array, received string)',
    );
    expect(error.issues).toEqual(list.response.safeParse(bad).error?.issues);
  });

  test('a body zod would change (a key it strips) is zod’s output', () => {
    const json = { ...organization, extra: 1 };
    expect(parseResponse(endpoints.organizations.retrieve, json, ok)).toEqual(organization);
  });

  test('what the caller does to a cached resource does not change the cached copy', async () => {
    const orgUrl = `${BASE}/organizations/${ORG_ID}.json`;
    server.use(
      http.get(orgUrl, ({ request }) =>
        request.headers.get('if-none-match') === 'W/"1"'
          ? new HttpResponse(null, { status: 304, headers: { ETag: 'W/"1"' } })
          : HttpResponse.json(organization, { headers: { ETag: 'W/"1"' } }),
      ),
    );
    const sdk = client();
    const first = await sdk.organizations.retrieve(ORG_ID);
    (first as { name: string }).name = 'Changed by the caller';
    const again = await sdk.organizations.retrieve(ORG_ID);
    (again as { website: string | null }).website = null;
    expect(await sdk.organizations.retrieve(ORG_ID)).toEqual(organization);
  });
});

describe('me.address.retrieve()', () => {
  test('resolves null on the empty 404 of a user without an address', async () => {
    server.use(http.get(`${BASE}/me/address.json`, () => new HttpResponse(null, { status: 404 })));
    await expect(client().me.address.retrieve()).resolves.toBeNull();
  });

  test('resolves the address otherwise', async () => {
    server.use(http.get(`${BASE}/me/address.json`, () => HttpResponse.json(address)));
    await expect(client().me.address.retrieve()).resolves.toEqual(address);
  });
});

describe('core/validation on its own', () => {
  const e = endpoints.organizations;

  test('validateRequest wraps the payload in its key and fills nothing it was not given', () => {
    expect(validateRequest(e.update, { params: { id: ORG_ID }, body: { name: 'Acme' } })).toEqual({
      params: { id: ORG_ID },
      query: {},
      body: { json: { organization: { name: 'Acme' } } },
    });
  });

  test('validateRequest sends a payload with a Blob as multipart', () => {
    const { body } = validateRequest(e.create, { body: { name: 'Acme', logo: new Blob(['x']) } });
    expect(body.json).toBeUndefined();
    const form = body.body as FormData;
    expect(form.get('organization[name]')).toBe('Acme');
    expect(form.get('organization[logo]')).toBeInstanceOf(Blob);
  });

  test("validateRequest gives a query of several keys in the schema's order, whatever the caller's", () => {
    const endpoint = { ...e.list, query: z.object({ a: z.string(), b: z.int().optional() }) } as Endpoint;
    const { query } = validateRequest(endpoint, { query: { b: 1, a: 'x' } });
    expect(Object.keys(query)).toEqual(['a', 'b']);
    // Path parameters are read by name: taken as they are.
    const params = { id: ORG_ID };
    expect(validateRequest(e.retrieve, { params }).params).toEqual({ id: ORG_ID });
  });

  test('validateRequest throws the errors map of a 422', () => {
    expect(() => validateRequest(e.retrieve, { params: { id: '' as OrganizationId } })).toThrow(
      RequestValidationError,
    );
  });

  test('readResponse checks the status, then the JSON, then the schema', () => {
    const url = `${BASE}/organizations/${ORG_ID}.json`;
    const text = JSON.stringify(organization);
    expect(readResponse(e.retrieve, url, answer(200, text))).toEqual({
      json: organization,
      data: organization,
    });
    expect(() => readResponse(e.retrieve, url, answer(201, text))).toThrow('expected 200, got 201');
    expect(() => readResponse(e.retrieve, url, answer(200, '<html>'))).toThrow('the response is not JSON');
    expect(() => readResponse(e.retrieve, url, answer(200, '{"id":1}'))).toThrow(ResponseValidationError);
    expect(readResponse(e.delete, url, answer(204, ''))).toEqual({ json: undefined, data: undefined });
  });
});

describe('payload keys the endpoint does not take are refused, not dropped', () => {
  const collabs = `POST /organizations/:organization_id/collabs.json`;

  test('a misspelt field (JSON from elsewhere) is refused with the field it may have meant', async () => {
    const error = await refused(
      client().collabs.create(ORG_ID, JSON.parse('{"nmae":"x","countries":["US"]}')),
    );
    expect(error.errors).toEqual({ nmae: [`is not a field of ${collabs}: did you mean name?`] });
    expect(error.message).toBe(`Invalid request: nmae is not a field of ${collabs}: did you mean name?`);
  });

  test('a camelCase field is refused with its snake_case name', async () => {
    const error = await refused(client().campaigns.create(ORG_ID, { name: 'c', cpmAmount: 500 } as never));
    expect(error.errors).toEqual({
      cpmAmount: [
        'is not a field of POST /organizations/:organization_id/campaigns.json: did you mean cpm_amount?',
      ],
    });
  });

  test('a file field of another resource is refused, naming the fields the endpoint takes', async () => {
    const error = await refused(client().campaigns.create(ORG_ID, { logo: new Blob(['x']) } as never));
    const [message] = error.errors.logo ?? [];
    expect(message).toMatch(
      /^is not a field of POST \/organizations\/:organization_id\/campaigns\.json \(it takes .*\bbanner_image\b.*\)$/,
    );
  });

  test('a payload wrapped already is refused: the SDK wraps it itself', async () => {
    const error = await refused(
      client().campaigns.create(ORG_ID, { campaign: { name: 'wrapped' } } as never),
    );
    expect(error.errors).toEqual({
      campaign: [
        "is the key the SDK wraps the payload in itself: pass the campaign's fields directly, not { campaign: { … } }",
      ],
    });
  });

  test('a payload with a transform (a social account) is checked against the fields under it', async () => {
    const error = await refused(
      client().me.socialAccounts.create({
        platform_id: 'youtube',
        accountUrl: 'https://youtube.com/@acme',
      } as never),
    );
    expect(error.errors.accountUrl).toEqual([
      'is not a field of POST /me/social_accounts.json: did you mean account_url?',
    ]);
  });

  test('a key given as undefined is as if not given', async () => {
    const { bodies } = capture('post', `${BASE}/organizations/${ORG_ID}/collabs.json`, collab, 201);
    await client().collabs.create(ORG_ID, { name: 'Launch', nmae: undefined } as never);
    expect(bodies).toEqual([{ collab: { name: 'Launch' } }]);
  });

  test("a resource read and spread into an update keeps working: the response's fields are dropped", async () => {
    const { bodies } = capture('patch', `${BASE}/organizations/${ORG_ID}/collabs/${collab.id}.json`, collab);
    const { brief: _html, ...rest } = collab;
    await client().collabs.update(ORG_ID, collab.id as never, { ...rest, name: 'Renamed' } as never);
    const sent = (bodies[0] as { collab: Record<string, unknown> }).collab;
    expect(sent.name).toBe('Renamed');
    for (const field of ['id', 'url', 'state', 'created_at', 'banner_image_url'])
      expect(sent).not.toHaveProperty(field);
  });

  test("a field that is neither the payload's nor the resource's is refused beside the resource's", async () => {
    const error = await refused(
      client().collabs.update(ORG_ID, collab.id as never, { ...collab, colour: 'red' } as never),
    );
    expect(Object.keys(error.errors)).toEqual(['colour']);
  });
});
