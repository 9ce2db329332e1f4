/** `.withResponse()`, `.asResponse()`, page headers and request ids. */
import { HttpResponse, http } from 'msw';
import { describe, expect, test } from 'vitest';
import {
  APIPromise,
  NotFoundError,
  OrganizationId,
  ResponseValidationError,
  ValidationError,
} from '../src/index.js';
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
} from './fixtures.js';

const server = mockServer();
const seen = recordRequests(server);
const orgUrl = `${BASE}/organizations/${ORG_ID}.json`;
const collabPath = `/organizations/${ORG_ID}/collabs/${COLLAB_ID}`;

describe('withResponse()', () => {
  test('gives the parsed data, the response (body still readable) and its request id', async () => {
    server.use(
      http.get(orgUrl, () => HttpResponse.json(organization, { headers: { 'X-Request-Id': 'req-1' } })),
    );
    const promise = client().organizations.retrieve(ORG_ID);
    expect(promise).toBeInstanceOf(APIPromise);
    const { data, response, requestId } = await promise.withResponse();
    expect(data).toEqual(organization);
    expect(requestId).toBe('req-1');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(await response.json()).toEqual(organization);
    expect(seen).toHaveLength(1);
  });

  test('awaiting the same promise as well sends nothing more', async () => {
    server.use(http.get(orgUrl, () => HttpResponse.json(organization)));
    const promise = client().organizations.retrieve(ORG_ID);
    const [data, answer] = await Promise.all([promise, promise.withResponse()]);
    expect(answer.data).toBe(data);
    expect(answer.requestId).toBeNull();
    expect(seen).toHaveLength(1);
  });

  test('the request is sent even when the promise is never read', async () => {
    server.use(http.delete(orgUrl, () => new HttpResponse(null, { status: 204 })));
    const sent = new Promise((resolve) => server.events.on('request:end', resolve));
    void client().organizations.delete(ORG_ID);
    await sent;
    expect(seen.map((r) => r.method)).toEqual(['DELETE']);
  });

  test('a 204 has no data and an empty body', async () => {
    server.use(http.delete(orgUrl, () => new HttpResponse(null, { status: 204 })));
    const { data, response } = await client().organizations.delete(ORG_ID).withResponse();
    expect(data).toBeUndefined();
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  test('a cache hit gives the 304 it was answered with, without a body; cache: false gives one', async () => {
    server.use(
      http.get(orgUrl, ({ request }) =>
        request.headers.get('if-none-match') === 'W/"1"'
          ? new HttpResponse(null, { status: 304, headers: { ETag: 'W/"1"', 'X-Request-Id': 'second' } })
          : HttpResponse.json(organization, { headers: { ETag: 'W/"1"' } }),
      ),
    );
    const sdk = client();
    await sdk.organizations.retrieve(ORG_ID);
    const { data, response, requestId } = await sdk.organizations.retrieve(ORG_ID).withResponse();
    expect(data).toEqual(organization);
    expect(response.status).toBe(304);
    expect(requestId).toBe('second');
    // As documented: the body is `data`'s to give, the 304 has none.
    expect(response.body).toBeNull();
    expect((await sdk.organizations.retrieve(ORG_ID).asResponse()).status).toBe(304);
    const fresh = await sdk.organizations.retrieve(ORG_ID, { cache: false }).asResponse();
    expect(fresh.status).toBe(200);
    expect(await fresh.json()).toEqual(organization);
  });

  test('a transition gives the show response it read the resource from', async () => {
    server.use(
      http.post(
        `${BASE}${collabPath}/submit.json`,
        () => new HttpResponse(null, { status: 303, headers: { Location: `${BASE}${collabPath}` } }),
      ),
      http.get(`${BASE}${collabPath}.json`, () =>
        HttpResponse.json(collab, { headers: { 'X-Request-Id': 'show' } }),
      ),
    );
    const { data, response, requestId } = await client().collabs.submit(ORG_ID, COLLAB_ID).withResponse();
    expect(data).toEqual(collab);
    expect(response.status).toBe(200);
    expect(requestId).toBe('show');
  });

  test('the address that is not there is null, with the 404 it came from', async () => {
    server.use(http.get(`${BASE}/me/address.json`, () => new HttpResponse(null, { status: 404 })));
    const { data, response } = await client().me.address.retrieve().withResponse();
    expect(data).toBeNull();
    expect(response.status).toBe(404);
    expect(await client().me.address.retrieve()).toBeNull();
  });

  test('every response handed over says which URL it answers, as a response of fetch does (its `url` was empty)', async () => {
    server.use(
      http.get(orgUrl, () => HttpResponse.json(organization)),
      http.delete(orgUrl, () => new HttpResponse(null, { status: 204 })),
      http.get(`${BASE}/organizations/${ORG_ID}/collabs.json`, () => pageOf([collab], 1)),
      http.post(
        `${BASE}${collabPath}/submit.json`,
        () => new HttpResponse(null, { status: 303, headers: { Location: `${BASE}${collabPath}` } }),
      ),
      http.get(`${BASE}${collabPath}.json`, () => HttpResponse.json(collab)),
      http.get(`${BASE}/me/address.json`, () => new HttpResponse(null, { status: 404 })),
    );
    const sdk = client();
    expect((await sdk.organizations.retrieve(ORG_ID).withResponse()).response.url).toBe(orgUrl);
    expect((await sdk.organizations.retrieve(ORG_ID).asResponse()).url).toBe(orgUrl);
    expect((await sdk.organizations.delete(ORG_ID).asResponse()).url).toBe(orgUrl);
    expect((await sdk.collabs.list(ORG_ID).asResponse()).url).toBe(
      `${BASE}/organizations/${ORG_ID}/collabs.json?page=1`,
    );
    expect((await sdk.collabs.submit(ORG_ID, COLLAB_ID).asResponse()).url).toBe(`${BASE}${collabPath}.json`);
    expect((await sdk.me.address.retrieve().asResponse()).url).toBe(`${BASE}/me/address.json`);
  });

  test('a 404 with a body (a wrong base URL, an unknown route) is NotFoundError, not "no address"', async () => {
    server.use(
      http.get(`${BASE}/me/address.json`, () => HttpResponse.json({ error: 'Not found' }, { status: 404 })),
    );
    await expect(client().me.address.retrieve()).rejects.toBeInstanceOf(NotFoundError);
  });

  test('an error status rejects withResponse() and asResponse() as it rejects the await', async () => {
    server.use(http.get(orgUrl, () => HttpResponse.json({ error: 'Not found' }, { status: 404 })));
    const promise = client().organizations.retrieve(ORG_ID);
    await expect(promise.withResponse()).rejects.toBeInstanceOf(NotFoundError);
    await expect(promise.asResponse()).rejects.toBeInstanceOf(NotFoundError);
    await expect(promise).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('asResponse()', () => {
  test('resolves to the response, its body readable', async () => {
    server.use(http.get(orgUrl, () => HttpResponse.json(organization, { headers: { 'X-Request-Id': 'r' } })));
    const response = await client().organizations.retrieve(ORG_ID).asResponse();
    expect(response).toBeInstanceOf(Response);
    expect(response.headers.get('x-request-id')).toBe('r');
    expect(await response.json()).toEqual(organization);
  });
});

describe('request ids', () => {
  test('an APIError carries the X-Request-Id of the answer', async () => {
    server.use(
      http.patch(orgUrl, () =>
        HttpResponse.json(
          { errors: { name: ["can't be blank"] } },
          { status: 422, headers: { 'X-Request-Id': 'abc' } },
        ),
      ),
    );
    const error = await client()
      .organizations.update(ORG_ID, { name: 'x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).requestId).toBe('abc');
  });

  test('a ResponseValidationError carries the X-Request-Id and headers of the answer it refused', async () => {
    const { url: _url, ...withoutUrl } = organization;
    server.use(
      http.get(orgUrl, () => HttpResponse.json(withoutUrl, { headers: { 'X-Request-Id': 'bad-shape' } })),
      http.get(`${BASE}/organizations/Org0000000000002.json`, () =>
        HttpResponse.text('<html>', { headers: { 'X-Request-Id': 'not-json' } }),
      ),
      http.get(`${BASE}/organizations.json`, () =>
        HttpResponse.json([], { headers: { 'X-Request-Id': 'no-pages' } }),
      ),
    );
    const c = client({ cache: false });
    const reasons = await Promise.all([
      c.organizations.retrieve(ORG_ID).catch((e: unknown) => e),
      c.organizations.retrieve(OrganizationId.parse('Org0000000000002')).catch((e: unknown) => e),
      c.organizations
        .list()
        .then((page) => page)
        .catch((e: unknown) => e),
    ]);
    for (const [error, id] of reasons.map((e, i) => [e, ['bad-shape', 'not-json', 'no-pages'][i]] as const)) {
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect((error as ResponseValidationError).requestId).toBe(id);
      expect((error as ResponseValidationError).headers.get('x-request-id')).toBe(id);
    }
  });

  test('an APIError without one has requestId null', async () => {
    server.use(http.get(orgUrl, () => HttpResponse.json({ error: 'Not found' }, { status: 404 })));
    const error = await client()
      .organizations.retrieve(ORG_ID)
      .catch((e: unknown) => e);
    expect((error as NotFoundError).requestId).toBeNull();
  });

  test('each page exposes its headers and request id', async () => {
    const all = organizations(25);
    server.use(
      http.get(`${BASE}/organizations.json`, ({ request }) => {
        const page = pageOf(all, pageParam(request));
        page.headers.set('X-Request-Id', `page-${pageParam(request)}`);
        return page;
      }),
    );
    const first = await client().organizations.list();
    expect(first.headers.get('total-count')).toBe('25');
    expect(first.requestId).toBe('page-1');
    const second = await first.getNextPage();
    expect(second.requestId).toBe('page-2');
    expect(second.headers.get('current-page')).toBe('2');
  });
});
