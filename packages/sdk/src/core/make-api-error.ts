import {
  APIError,
  type APIErrorRequest,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  NotAcceptableError,
  NotFoundError,
  PermissionDeniedError,
  ServiceUnavailableError,
  ValidationError,
} from './error.js';

// Apart from the classes (error.ts), which `@app/sdk/errors` exports as they are: the CommonJS
// build takes them from `errors.cjs` (tsup.config.ts), and this is not one of its exports.

const byStatus: Readonly<Record<number, typeof APIError>> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  406: NotAcceptableError,
  422: ValidationError,
  503: ServiceUnavailableError,
};

/** The one place that maps a status to its error class. */
export function makeAPIError(
  status: number,
  headers: Headers,
  body: unknown,
  request?: APIErrorRequest,
): APIError {
  const ErrorClass = byStatus[status] ?? (status >= 500 ? InternalServerError : APIError);
  return new ErrorClass(status, headers, body, request);
}
