import { UNAUTHORIZED_TEXT, WWW_AUTHENTICATE } from '@app/schemas';
import { HttpResponse, http } from 'msw';
import { describe, expect, test } from 'vitest';
import { makeAPIError } from '../src/core/make-api-error.js';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  MarketplaceError,
  NotAcceptableError,
  NotFoundError,
  PermissionDeniedError,
  RequestValidationError,
  ResponseValidationError,
  ServiceUnavailableError,
  ValidationError,
} from '../src/index.js';
import { BASE, client, mockServer, ORG_ID, TOKEN } from './fixtures.js';

const server = mockServer();
const orgUrl = `${BASE}/organizations/${ORG_ID}.json`;
const noRetries = () => client({ maxRetries: 0 });

function answer(response: () => Response) {
  server.use(http.get(orgUrl, response));
  return noRetries()
    .organizations.retrieve(ORG_ID)
    .then(
      () => {
        throw new Error('expected an error');
      },
      (error: unknown) => error,
    );
}

test.each(
  (
    [
      [400, BadRequestError],
      [401, AuthenticationError],
      [403, PermissionDeniedError],
      [404, NotFoundError],
      [406, NotAcceptableError],
      [422, ValidationError],
      [503, ServiceUnavailableError],
      [500, InternalServerError],
      [502, InternalServerError],
      [504, InternalServerError],
      [409, APIError],
      [429, APIError],
    ] as const
  ).map(([status, ErrorClass]) => ({ status, ErrorClass, name: ErrorClass.name })),
)('$status is a $name', async ({ status, ErrorClass }) => {
  const error = await answer(() => HttpResponse.json({ error: 'Boom' }, { status }));
  expect(error).toBeInstanceOf(ErrorClass);
  expect(error).toBeInstanceOf(APIError);
  expect(error).toBeInstanceOf(MarketplaceError);
  expect(error).toMatchObject({
    status,
    name: ErrorClass.name,
    body: { error: 'Boom' },
    message: `${status} Boom`,
  });
});

test('an APIError names the request it answers in `request`; its message keeps the status and the body', async () => {
  const error = await answer(() => HttpResponse.json({ error: 'Not found' }, { status: 404 }));
  expect(error).toBeInstanceOf(NotFoundError);
  expect(error).toMatchObject({
    message: '404 Not found',
    request: { method: 'GET', url: orgUrl, route: '/organizations/:id.json' },
  });
  // One made by hand has none.
  expect(new APIError(404, new Headers(), undefined).request).toBeUndefined();
});

test('a 401 keeps its text/plain body as text and its headers', async () => {
  const error = await answer(
    () =>
      new HttpResponse(UNAUTHORIZED_TEXT, {
        status: 401,
        headers: { 'Content-Type': 'text/plain; charset=utf-8', 'WWW-Authenticate': WWW_AUTHENTICATE },
      }),
  );
  expect(error).toBeInstanceOf(AuthenticationError);
  const { body, headers, message } = error as AuthenticationError;
  expect(body).toBe(UNAUTHORIZED_TEXT);
  expect(headers.get('www-authenticate')).toBe(WWW_AUTHENTICATE);
  expect(message).toBe(`401 ${UNAUTHORIZED_TEXT}`);
});

test('a 401 on a write says the token may be read-only; on a read the message stays the status and the body', async () => {
  const unauthorized = () =>
    new HttpResponse(UNAUTHORIZED_TEXT, {
      status: 401,
      headers: { 'Content-Type': 'text/plain; charset=utf-8', 'WWW-Authenticate': WWW_AUTHENTICATE },
    });
  server.use(http.post(`${BASE}/organizations.json`, unauthorized));
  const write = await noRetries()
    .organizations.create({ name: 'Acme' })
    .catch((e: unknown) => e);
  expect(write).toBeInstanceOf(AuthenticationError);
  expect(write).toMatchObject({
    message: `401 ${UNAUTHORIZED_TEXT} (this call writes: the token is missing, revoked or read-only)`,
    body: UNAUTHORIZED_TEXT,
  });
  const read = await answer(unauthorized);
  expect((read as AuthenticationError).message).toBe(`401 ${UNAUTHORIZED_TEXT}`);
  // Made by hand, without its request: as before.
  expect(new AuthenticationError(401, new Headers(), UNAUTHORIZED_TEXT).message).toBe(
    `401 ${UNAUTHORIZED_TEXT}`,
  );
});

test('a body is parsed as JSON only when its content type says so', async () => {
  const error = await answer(
    () =>
      new HttpResponse('{"error":"not really json"}', {
        status: 403,
        headers: { 'Content-Type': 'text/plain' },
      }),
  );
  expect((error as APIError).body).toBe('{"error":"not really json"}');
});

test('an empty 404 (the address) has an undefined body', async () => {
  const error = await answer(() => new HttpResponse(null, { status: 404 }));
  expect(error).toMatchObject({ status: 404, body: undefined, message: '404 status code (no body)' });
});

test('a 422 exposes its errors map', async () => {
  const errors = { name: ["can't be blank"], website: ['must be an http or https URL', 'is too long'] };
  const error = await answer(() => HttpResponse.json({ errors }, { status: 422 }));
  expect(error).toBeInstanceOf(ValidationError);
  expect((error as ValidationError).errors).toEqual(errors);
  expect((error as ValidationError).message).toBe(
    "422 name can't be blank; website must be an http or https URL, is too long",
  );
});

test("the `base` key's messages are said without the word base (they are about the whole request)", async () => {
  const reused = await answer(() =>
    HttpResponse.json(
      { errors: { base: ['Idempotency-Key was used with another request'] } },
      { status: 422 },
    ),
  );
  expect((reused as ValidationError).message).toBe('422 Idempotency-Key was used with another request');
  const both = await answer(() =>
    HttpResponse.json(
      { errors: { name: ["can't be blank"], base: ['has reached the limit'] } },
      { status: 422 },
    ),
  );
  expect((both as ValidationError).message).toBe("422 name can't be blank; has reached the limit");
  expect(
    new RequestValidationError({ base: ['Invalid input: expected object, received undefined'] }).message,
  ).toBe('Invalid request: Invalid input: expected object, received undefined');
});

test('a 422 with another body shape has an empty errors map', async () => {
  const error = await answer(() => HttpResponse.json({ error: 'odd' }, { status: 422 }));
  expect((error as ValidationError).errors).toEqual({});
});

test('a 503 keeps Retry-After readable', async () => {
  const error = await answer(() =>
    HttpResponse.json(
      { error: 'Service temporarily unavailable' },
      { status: 503, headers: { 'Retry-After': '1' } },
    ),
  );
  expect((error as ServiceUnavailableError).headers.get('retry-after')).toBe('1');
});

describe('errors without a response', () => {
  test('a failed connection is an APIConnectionError with the cause', async () => {
    server.use(http.get(orgUrl, () => HttpResponse.error()));
    const error = await noRetries()
      .organizations.retrieve(ORG_ID)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });

  test('the timeout error is a kind of connection error', () => {
    expect(new APIConnectionTimeoutError('x')).toBeInstanceOf(APIConnectionError);
  });

  test('contract errors are MarketplaceErrors but not APIErrors', () => {
    for (const error of [new RequestValidationError({}), new ResponseValidationError('x', 200)]) {
      expect(error).toBeInstanceOf(MarketplaceError);
      expect(error).not.toBeInstanceOf(APIError);
    }
  });
});

describe('JSON.stringify(error): name, message and the fields, for a log line', () => {
  const json = (error: unknown) => JSON.parse(JSON.stringify(error)) as Record<string, unknown>;

  test('an APIError: its status, request id, request, body and headers as a plain object', async () => {
    const error = await answer(() =>
      HttpResponse.json(
        { error: 'Not found' },
        {
          status: 404,
          headers: { 'x-request-id': 'req-1', 'www-authenticate': 'Token realm="Application"' },
        },
      ),
    );
    expect(json(error)).toEqual({
      name: 'NotFoundError',
      message: '404 Not found',
      status: 404,
      headers: {
        'content-length': '21',
        'content-type': 'application/json',
        'x-request-id': 'req-1',
        'www-authenticate': 'Token realm="Application"',
      },
      body: { error: 'Not found' },
      request: { method: 'GET', url: orgUrl, route: '/organizations/:id.json' },
      requestId: 'req-1',
    });
  });

  test('every APIError class, a ValidationError with its errors', () => {
    for (const status of [400, 401, 403, 404, 406, 422, 500, 503, 418]) {
      const body = status === 422 ? { errors: { name: ["can't be blank"] } } : { error: 'Boom' };
      const error = makeAPIError(status, new Headers(), body, {
        method: 'GET',
        url: orgUrl,
        route: '/organizations/:id.json',
      });
      const out = json(error);
      expect(out).toMatchObject({
        name: error.name,
        message: error.message,
        status,
        body,
        headers: {},
        requestId: null,
      });
      if (status === 422) expect(out.errors).toEqual({ name: ["can't be blank"] });
    }
  });

  test('never the token: no credential header is written, and the request holds none', async () => {
    const error = await answer(
      () =>
        new HttpResponse('HTTP Token: Access denied.', {
          status: 401,
          headers: {
            authorization: `Bearer ${TOKEN}`,
            'set-cookie': 'session=1',
            'content-type': 'text/plain',
          },
        }),
    );
    const text = JSON.stringify(error);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('session=1');
    expect(json(error).headers).toEqual({ 'content-type': 'text/plain' });
  });

  test('a connection error: its message (with the URL), its code and its cause', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4999'), { code: 'ECONNREFUSED' });
    const error = new APIConnectionError(
      `Connection failed: GET ${orgUrl} (connect ECONNREFUSED 127.0.0.1:4999)`,
      {
        cause,
        code: 'ECONNREFUSED',
      },
    );
    expect(json(error)).toEqual({
      name: 'APIConnectionError',
      message: `Connection failed: GET ${orgUrl} (connect ECONNREFUSED 127.0.0.1:4999)`,
      code: 'ECONNREFUSED',
      cause: { name: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:4999', code: 'ECONNREFUSED' },
    });
  });

  test('a failed call and a timeout', async () => {
    server.use(http.get(orgUrl, () => HttpResponse.error()));
    const failed = await noRetries()
      .organizations.retrieve(ORG_ID)
      .catch((e: unknown) => e);
    expect(json(failed)).toMatchObject({
      name: 'APIConnectionError',
      message: expect.stringContaining(orgUrl),
    });
    expect(json(failed).cause).toMatchObject({ name: 'TypeError' });
    const timeout = new APIConnectionTimeoutError(`No response within 5 ms: GET ${orgUrl}`);
    expect(json(timeout)).toEqual({
      name: 'APIConnectionTimeoutError',
      message: `No response within 5 ms: GET ${orgUrl}`,
    });
  });

  test('contract errors: the fields refused, the issues of a response', () => {
    expect(json(new RequestValidationError({ nmae: ['is not a field'] }))).toEqual({
      name: 'RequestValidationError',
      message: 'Invalid request: nmae is not a field',
      errors: { nmae: ['is not a field'] },
    });
    const response = new ResponseValidationError(
      'GET /x: the response is not JSON: <',
      200,
      [],
      new Headers({ 'x-request-id': 'r2' }),
    );
    expect(json(response)).toEqual({
      name: 'ResponseValidationError',
      message: 'GET /x: the response is not JSON: <',
      status: 200,
      issues: [],
      headers: { 'x-request-id': 'r2' },
      requestId: 'r2',
    });
  });
});
