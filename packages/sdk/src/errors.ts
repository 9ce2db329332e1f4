/**
 * `@app/sdk/errors`: the SDK's error classes, without the client, for code that only tells errors
 * apart (a UI layer, a server's error mapper). They are the very classes the client and
 * `@app/sdk/operations` throw: the built entries share them, in ESM and in CommonJS.
 */

export type { FieldErrors } from '@app/schemas';
export {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  type APIErrorRequest,
  AuthenticationError,
  BadRequestError,
  type CheckedClientOption,
  ClientOptionError,
  InternalServerError,
  MarketplaceError,
  type MarketplaceErrorJSON,
  NotAcceptableError,
  NotFoundError,
  PermissionDeniedError,
  RequestValidationError,
  ResponseValidationError,
  ServiceUnavailableError,
  ValidationError,
} from './core/error.js';
