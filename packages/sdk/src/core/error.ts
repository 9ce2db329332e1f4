import { type FieldErrors, REQUEST_ID_HEADER } from '@app/schemas';
import type * as z from 'zod';

/**
 * Where an SDK error records the kinds it is (its class and the SDK classes above it), under a key
 * every copy of the SDK shares: an application that loads the SDK twice (its ESM build through
 * `import` in one module, its CommonJS build through `require` in another) has two of each class,
 * and `instanceof` alone would not see one copy's `NotFoundError` as the other's.
 */
const KINDS = Symbol.for('@app/sdk/error-kinds');

/** A class of the SDK's errors (or one a caller derives from them). */
type ErrorClass = abstract new (...args: never[]) => object;

/** Records on `error` the names of `leaf` and of its superclasses below `Error`. */
function recordKinds(error: Error, leaf: ErrorClass): void {
  const kinds: string[] = [];
  for (
    let c: ErrorClass = leaf;
    c !== Error && c !== TypeError && c !== Function.prototype;
    c = Object.getPrototypeOf(c)
  )
    kinds.push(c.name);
  Object.defineProperty(error, KINDS, { value: kinds });
}

/** `instanceof` for the SDK's error classes: this copy's instances, or another copy's of the same kind. */
function isKind(kind: ErrorClass, value: unknown): boolean {
  if (Function.prototype[Symbol.hasInstance].call(kind, value)) return true;
  const kinds = typeof value === 'object' && value !== null ? Reflect.get(value, KINDS) : undefined;
  return Array.isArray(kinds) && kinds.includes(kind.name);
}

/**
 * Base class of every error the SDK throws on purpose. `instanceof` recognises the errors of
 * another copy of the SDK in the same process (its ESM and CommonJS builds loaded side by side).
 */
export class MarketplaceError extends Error {
  override name = 'MarketplaceError';

  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    recordKinds(this, new.target);
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of `instanceof`, a subclass too
    return isKind(this, value);
  }

  /**
   * What `JSON.stringify(error)` writes, for a log line: `name`, `message`, then the error's own
   * fields (`status`, `headers` as a plain object, `body`, `request`, `requestId`, `errors`,
   * `code`, `issues`, …) and its `cause` (`name`, `message`, `code`). No credential: the request's
   * headers are not kept, and `Authorization`, `Cookie` and `Set-Cookie` are left out of `headers`.
   */
  toJSON(): MarketplaceErrorJSON {
    const json: MarketplaceErrorJSON = { name: this.name, message: this.message };
    for (const [key, value] of Object.entries(this))
      if (key !== 'name' && key !== 'message')
        json[key] = value instanceof Headers ? plainHeaders(value) : value;
    if (this.cause !== undefined) json.cause = causeJSON(this.cause);
    return json;
  }
}

/** An SDK error as `JSON.stringify` writes it ({@link MarketplaceError.toJSON}). */
export interface MarketplaceErrorJSON {
  /** The class's name, e.g. `NotFoundError`. */
  name: string;
  /** The error's message, e.g. `404 Not found`. */
  message: string;
  /** The error's own fields, by their names; `headers` as `{ name: value }`. */
  [field: string]: unknown;
}

/** Headers a log line must not carry: credentials. */
const SECRET_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
]);

/** `{ name: value }` of `headers` (lowercase names), credentials left out. */
function plainHeaders(headers: Headers): Record<string, string> {
  const plain: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (!SECRET_HEADERS.has(name)) plain[name] = value;
  });
  return plain;
}

/** A cause as JSON: an error's name, message and system code; anything else as its text. */
function causeJSON(cause: unknown): unknown {
  if (!(cause instanceof Error)) return typeof cause === 'object' && cause !== null ? String(cause) : cause;
  const code = Reflect.get(cause, 'code');
  return { name: cause.name, message: cause.message, ...(typeof code === 'string' && { code }) };
}

/** The client options {@link ClientOptionError} checks. */
export type CheckedClientOption = 'token' | 'baseUrl' | 'userAgent' | 'defaultHeaders';

/**
 * A client option the SDK cannot use (`new Marketplace()`): a `TypeError` naming the option and the
 * problem, never the option's secret (the token, a password in the base URL, a header's value).
 */
export class ClientOptionError extends TypeError {
  readonly #option: CheckedClientOption;
  readonly #problem: string;

  constructor(option: CheckedClientOption, problem: string) {
    super(`Marketplace: \`${option}\` ${problem}`);
    this.#option = option;
    this.#problem = problem;
    recordKinds(this, new.target);
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of `instanceof`, a subclass too
    return isKind(this, value);
  }

  /** The option refused. */
  get option(): CheckedClientOption {
    return this.#option;
  }

  /** What is wrong with it, e.g. `must be an http or https URL, not ftp:`. */
  get problem(): string {
    return this.#problem;
  }
}

/** The request an {@link APIError} answers, as the SDK sent it. */
export interface APIErrorRequest {
  /** `GET`, `POST`, `PATCH` or `DELETE`. */
  readonly method: string;
  /** The URL it went to, the base URL and the query included. */
  readonly url: string;
  /**
   * The endpoint's path, its ids as parameters (`/organizations/:organization_id/collabs.json`):
   * which call it was, and which ids it took.
   */
  readonly route: string;
}

/**
 * The server answered with an error status. The message is the status and what the body says
 * (`404 Not found`); `request` says which request it answers.
 */
export class APIError extends MarketplaceError {
  override name = 'APIError';
  /** The server's `X-Request-Id`, to quote when reporting the problem; `null` when it sent none. */
  readonly requestId: string | null;

  constructor(
    /** HTTP status of the response. */
    readonly status: number,
    /** Response headers, e.g. `WWW-Authenticate` on a 401 or `Retry-After` on a 503. */
    readonly headers: Headers,
    /** Parsed JSON when the response said `application/json`, its text otherwise, `undefined` when empty. */
    readonly body: unknown,
    /** The request this answers (the SDK's calls always record it); `undefined` when not known. */
    readonly request?: APIErrorRequest,
  ) {
    super(`${status} ${describe(body)}`);
    this.requestId = headers.get(REQUEST_ID_HEADER);
  }
}

/** 400: the request body was not valid JSON. */
export class BadRequestError extends APIError {
  override name = 'BadRequestError';
}
/**
 * 401: missing, unknown or revoked token, or a read token on a write. Do not retry with the same
 * token. The server answers all of them alike, so on a write (any method but `GET`/`HEAD`) the
 * message says the token may be read-only: `401 HTTP Token: Access denied. (this call writes: the
 * token is missing, revoked or read-only)`; `body` is the server's.
 */
export class AuthenticationError extends APIError {
  override name = 'AuthenticationError';

  constructor(status: number, headers: Headers, body: unknown, request?: APIErrorRequest) {
    super(status, headers, body, request);
    if (request && request.method !== 'GET' && request.method !== 'HEAD')
      this.message += ' (this call writes: the token is missing, revoked or read-only)';
  }
}
/** 403: a member of the organization whose role or the resource's state forbids the action. */
export class PermissionDeniedError extends APIError {
  override name = 'PermissionDeniedError';
}
/** 404: the resource does not exist or is not visible to the caller. */
export class NotFoundError extends APIError {
  override name = 'NotFoundError';
}
/** 406: the server was not asked for JSON (the SDK always asks; seen only behind a misbehaving proxy). */
export class NotAcceptableError extends APIError {
  override name = 'NotAcceptableError';
}
/** 422: validation failed or a guard blocked the operation; `errors` maps each field to its messages. */
export class ValidationError extends APIError {
  override name = 'ValidationError';
  /** e.g. `{ name: ["can't be blank"], base: ["..."] }`; empty when the body had another shape. */
  readonly errors: FieldErrors;

  constructor(status: number, headers: Headers, body: unknown, request?: APIErrorRequest) {
    super(status, headers, body, request);
    this.errors = fieldErrorsOf(body) ?? {};
  }
}
/** 503: the service is overloaded or its database is unreachable; retried automatically. */
export class ServiceUnavailableError extends APIError {
  override name = 'ServiceUnavailableError';
}
/**
 * Any other 5xx; retried automatically (a POST with the same `Idempotency-Key`, so that the server
 * runs it once), within `maxRetries`.
 */
export class InternalServerError extends APIError {
  override name = 'InternalServerError';
}

/**
 * No response: DNS failure, refused or reset connection. `cause` holds the runtime's error; the
 * message ends with the system's reason when the runtime gave one.
 */
export class APIConnectionError extends MarketplaceError {
  override name = 'APIConnectionError';
  /**
   * The system error's code (`ECONNREFUSED`, `ENOTFOUND`, `ECONNRESET`, `UND_ERR_SOCKET`, …) when
   * the runtime gave one (Node does; browsers give none).
   */
  readonly code: string | undefined;

  constructor(message: string, options?: ErrorOptions & { code?: string | undefined }) {
    super(message, options);
    this.code = options?.code;
  }
}
/** No response within `timeout` (per attempt). */
export class APIConnectionTimeoutError extends APIConnectionError {
  override name = 'APIConnectionTimeoutError';
}

/**
 * A response did not match its schema: the server and this SDK disagree about the contract. Quote
 * its `requestId` when reporting it.
 */
export class ResponseValidationError extends MarketplaceError {
  override name = 'ResponseValidationError';
  /** The server's `X-Request-Id` of the response; `null` when it sent none. */
  readonly requestId: string | null;

  constructor(
    message: string,
    readonly status: number,
    /** The zod issues; empty when the status or the JSON itself was wrong. */
    readonly issues: readonly z.core.$ZodIssue[] = [],
    /** The response's headers. */
    readonly headers: Headers = new Headers(),
  ) {
    super(message);
    this.requestId = headers.get(REQUEST_ID_HEADER);
  }
}

/** A payload or parameter was rejected before anything was sent. */
export class RequestValidationError extends MarketplaceError {
  override name = 'RequestValidationError';

  /** Same shape as a 422's `errors`, e.g. `{ website: ["must be an http or https URL"] }`. */
  constructor(readonly errors: FieldErrors) {
    super(`Invalid request: ${formatErrors(errors)}`);
  }
}

function describe(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, 200);
  if (typeof body === 'object' && body !== null) {
    if ('error' in body && typeof body.error === 'string') return body.error;
    const errors = fieldErrorsOf(body);
    if (errors) return formatErrors(errors);
  }
  return 'status code (no body)';
}

/**
 * The `errors` map of a 422's body (`{"errors": {"field": ["message", …]}}`, the contract's
 * `ValidationErrorBody`), a copy; `undefined` for a body of another shape. Checked by hand rather
 * than with the schema, so that the error classes (`@app/sdk/errors`) load without zod.
 */
function fieldErrorsOf(body: unknown): FieldErrors | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const errors: unknown = Reflect.get(body, 'errors');
  if (typeof errors !== 'object' || errors === null || Array.isArray(errors)) return undefined;
  const copy: FieldErrors = {};
  for (const [field, messages] of Object.entries(errors)) {
    if (!Array.isArray(messages) || !messages.every((m) => typeof m === 'string')) return undefined;
    copy[field] = [...messages];
  }
  return copy;
}

/** `name can't be blank; …`; the messages of `base` (the whole request's) without a field name. */
function formatErrors(errors: FieldErrors): string {
  return Object.entries(errors)
    .map(([field, messages]) => (field === 'base' ? '' : `${field} `) + messages.join(', '))
    .join('; ');
}
