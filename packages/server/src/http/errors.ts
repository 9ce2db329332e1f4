import {
  type FieldErrors,
  FORBIDDEN_MESSAGE,
  NOT_FOUND_MESSAGE,
  SERVICE_UNAVAILABLE_MESSAGE,
} from '@app/schemas';
import type { FastifyReply } from 'fastify';

/**
 * An answer other than success, thrown from anywhere in a request and written by the one error
 * handler. `body` undefined means an empty body.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: Record<string, unknown> | undefined,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body?.error === 'string' ? body.error : `HTTP ${statusCode}`);
  }
}

export const notFound = () => new HttpError(404, { error: NOT_FOUND_MESSAGE });
export const forbidden = () => new HttpError(403, { error: FORBIDDEN_MESSAGE });
export const badRequest = (message: string) => new HttpError(400, { error: message });
/** A body larger than the endpoint reads, or than the server could ever hold: not retryable. */
export const payloadTooLarge = () => new HttpError(413, { error: 'The request body is too large' });
/** The body's content type is not one the endpoint reads. */
export const UNSUPPORTED_MEDIA_TYPE_MESSAGE =
  'Send the body as application/json (or multipart/form-data for files)';
export const unsupportedMediaType = (why?: string) =>
  new HttpError(415, {
    error: why ? `Send the body as application/json: ${why}` : UNSUPPORTED_MEDIA_TYPE_MESSAGE,
  });
/**
 * The body is in a content coding (`gzip`, `deflate`, `br`, …): none is decoded (RFC 9110
 * §15.5.16); `Accept-Encoding: identity` says what is (RFC 7694).
 */
export const unsupportedContentEncoding = () =>
  new HttpError(
    415,
    { error: 'The request content encoding is not supported: send the body uncompressed (identity)' },
    { 'accept-encoding': 'identity' },
  );
/**
 * Why a request got the transient `503` (counted by cause in `/metrics`); `bodies`: its body
 * would have taken the bodies held in memory past their budget (`MARKETPLACE_BODY_BUDGET_BYTES`);
 * `migrations`: `GET /ready` while this build's migrations are not all applied.
 */
export const UNAVAILABLE_CAUSES = [
  'overload',
  'share',
  'database',
  'storage',
  'chaos',
  'timeout',
  'shutdown',
  'bodies',
  'migrations',
] as const;
export type UnavailableCause = (typeof UNAVAILABLE_CAUSES)[number];

/** `503 {"error"}` with `Retry-After: 1`: transient, the client should retry. */
export class UnavailableError extends HttpError {
  constructor(readonly reason: UnavailableCause) {
    super(503, { error: SERVICE_UNAVAILABLE_MESSAGE }, { 'retry-after': '1' });
  }
}

export const unavailable = (reason: UnavailableCause) => new UnavailableError(reason);

/** Writes an {@link HttpError}; a `503` records its cause on the request (`unavailableCause`). */
export function sendHttpError(reply: FastifyReply, error: HttpError) {
  if (error instanceof UnavailableError) reply.request.unavailableCause = error.reason;
  reply.code(error.statusCode).headers(error.headers);
  return error.body === undefined ? reply.send() : reply.send(error.body);
}

/**
 * A service the server relies on besides the database (the upload store) failed or cannot be
 * reached: answered like an unavailable database, `503` with `Retry-After: 1`, and logged.
 */
export class DependencyUnavailableError extends Error {}

/** `422 {"errors": {...}}`: a validation failure or a guard that blocked the operation. */
export const unprocessable = (errors: FieldErrors) => new HttpError(422, { errors });

/** Throws the `422` when any field collected an error. */
export function throwIfInvalid(errors: FieldErrors): void {
  if (Object.keys(errors).length > 0) throw unprocessable(errors);
}

/** `401` is plain text with a challenge; see the auth plugin. */
export class UnauthorizedError extends Error {
  readonly statusCode = 401;
}

/** The message of a body's missing or non-object wrapper key (decisions.md: "is missing"). */
export const wrapperMessage = (value: unknown): string =>
  value === undefined ? 'is missing' : 'must be an object';
