import { UNAUTHORIZED_TEXT, WWW_AUTHENTICATE } from '@app/schemas';
import { HttpResponse, http } from 'msw';
import { describe, expect, test } from 'vitest';
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
import { BASE, client, mockServer, ORG_ID } from './fixtures.js';

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
