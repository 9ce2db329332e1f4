import { isNetworkError, type RetryOptions } from 'ky';

/** Every 5xx: retried (subject to the method rule), and its `Retry-After` honoured. */
const SERVER_ERRORS = Array.from({ length: 100 }, (_, i) => 500 + i);

/** Longest wait a `Retry-After` header may ask for. */
export const MAX_RETRY_AFTER_MS = 60_000;
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

/**
 * Errors Node's fetch (undici) reports while opening the connection, i.e. before any byte of
 * the request was written. Only these make a POST safe to send again.
 */
const CONNECT_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** `409`: another request with the same `Idempotency-Key` is still running (retry after `Retry-After`). */
const IN_PROGRESS = 409;

/**
 * The retry policy of decisions.md §5 and §6, expressed as ky options: exponential backoff with
 * full jitter, `random(0, min(8 s, 0.5 s × 2^attempt))` with `attempt` 0 for the first retry;
 * `Retry-After` honoured up to 60 s; every 5xx and transport error retried. A POST that carries an
 * `Idempotency-Key` (`keyed`) is retried exactly as a PATCH is, and also on `409` (the first
 * attempt with its key is still running); a POST without one (the test helpers) only when its
 * connection could not be opened.
 */
export function retryPolicy(
  method: string,
  limit: number,
  random: () => number,
  keyed = false,
): RetryOptions {
  const statusCodes = keyed ? [IN_PROGRESS, ...SERVER_ERRORS] : SERVER_ERRORS;
  return {
    limit,
    // POST is listed so that ky asks `shouldRetry`, which lets through connection failures only.
    methods: ['get', 'head', 'put', 'patch', 'delete', 'post'],
    statusCodes,
    afterStatusCodes: statusCodes,
    maxRetryAfter: MAX_RETRY_AFTER_MS,
    // ky counts retries from 1.
    delay: (retry) => BASE_DELAY_MS * 2 ** (retry - 1),
    backoffLimit: MAX_DELAY_MS,
    // ky applies `backoffLimit` after the jitter, which alone would make every long wait exactly
    // 8 s; drawing from the capped range keeps the wait uniform in [0, min(8 s, delay)] (§5).
    jitter: (delay) => Math.min(delay, MAX_DELAY_MS) * random(),
    retryOnTimeout: true,
    ...(method === 'POST' && !keyed && { shouldRetry: ({ error }) => failedBeforeSending(error) }),
  };
}

/**
 * Whether a request failed while connecting. undici wraps the system error twice:
 * ky's `NetworkError` → `TypeError('fetch failed')` → `Error` with `code` (`ECONNREFUSED`, …), or an
 * `AggregateError` of such errors when several addresses were tried. A reset or a timeout after
 * connecting (`UND_ERR_SOCKET`, `ECONNRESET`, ky's `TimeoutError`) may follow a request the server
 * already received, so it does not count.
 */
export function failedBeforeSending(error: unknown): boolean {
  if (!isNetworkError(error)) return false;
  const system = causeOf(causeOf(error));
  const errors = system instanceof AggregateError && codeOf(system) === undefined ? system.errors : [system];
  return errors.length > 0 && errors.every((e) => CONNECT_ERROR_CODES.has(codeOf(e) ?? ''));
}

/**
 * The system's reason for a network error (see {@link failedBeforeSending} for where undici puts
 * it): its code and message, the messages of each address tried joined; nothing when the runtime
 * gave none (a browser's `TypeError: Failed to fetch`).
 */
export function systemReason(error: unknown): { code: string | undefined; message: string | undefined } {
  const system = causeOf(causeOf(error));
  if (!(system instanceof Error)) return { code: undefined, message: undefined };
  const tried = system instanceof AggregateError ? (system.errors as unknown[]) : [];
  const message =
    system.message ||
    tried
      .map((e) => (e instanceof Error ? e.message : ''))
      .filter(Boolean)
      .join(', ');
  return {
    code: codeOf(system) ?? tried.map(codeOf).find((code) => code !== undefined),
    message: message || undefined,
  };
}

function causeOf(error: unknown): unknown {
  return error instanceof Error ? error.cause : undefined;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}
