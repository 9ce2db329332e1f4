/**
 * Receives one `debug` entry per attempt (request, then response) and a `warn` entry for each
 * transport failure or 5xx, and for each cache store call that failed (`marketplace cache store get
 * failed`, with `cacheStore` and `error`). `console` fits; for pino, wrap it:
 * `{ debug: (m, d) => log.debug(d, m), … }`.
 */
export interface Logger {
  debug(message: string, details: LogDetails): void;
  warn(message: string, details: LogDetails): void;
}

export interface LogDetails {
  method: string;
  url: string;
  /** 1 for the first attempt, 2 for the first retry, …; 0 for a cache store entry (no attempt's). */
  attempt: number;
  /** Request headers (with `Authorization` redacted), or response headers. */
  headers?: Record<string, string>;
  status?: number;
  durationMs?: number;
  error?: string;
  /**
   * The `CacheStore` method that failed (threw, rejected, did not answer within the call's
   * `timeout`, or, for `get`, answered something else than `{ etag, body }`); `url` is the one it
   * was keyed by. The call went on without the cache.
   */
  cacheStore?: 'get' | 'set' | 'delete';
}

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const REDACTED = '[redacted]';

/** Headers as a plain object, the credentials replaced. */
export function redactHeaders(headers: Headers): Record<string, string> {
  const out = Object.fromEntries(headers);
  if ('authorization' in out) out.authorization = REDACTED;
  return out;
}

/**
 * Wraps `fetch` so that every attempt (ky calls it once per attempt) is counted and logged.
 * `onAttempt` returns the attempt's number.
 */
export function instrumentFetch(fetch: Fetch, logger: Logger | undefined, onAttempt: () => number): Fetch {
  // Without a logger, no async wrapper of its own: one promise and one await fewer per attempt.
  if (logger === undefined)
    return (input, init) => {
      onAttempt();
      return fetch(input, init);
    };
  return async (input, init) => {
    const attempt = onAttempt();
    const request = input instanceof Request ? input : new Request(input, init);
    const base = { method: request.method, url: request.url, attempt };
    logger.debug('marketplace request', { ...base, headers: redactHeaders(request.headers) });
    const started = Date.now();
    try {
      const response = await fetch(input, init);
      const details = { ...base, status: response.status, durationMs: Date.now() - started };
      if (response.status >= 500)
        logger.warn('marketplace response', { ...details, headers: Object.fromEntries(response.headers) });
      else
        logger.debug('marketplace response', { ...details, headers: Object.fromEntries(response.headers) });
      return response;
    } catch (error) {
      logger.warn('marketplace request failed', {
        ...base,
        durationMs: Date.now() - started,
        error: String(error),
      });
      throw error;
    }
  };
}

/** Levels of `MARKETPLACE_LOG`; the SDK writes `debug` and `warn` entries. */
const LOG_LEVELS = ['debug', 'info', 'warn'] as const;

/**
 * The logger `MARKETPLACE_LOG` asks for, writing one line per entry to stderr (`console.error`):
 * `debug` logs every request and response, `info` and `warn` failures and 5xx only. Headers are
 * redacted as for any logger. `undefined` when the variable is unset.
 */
export function stderrLogger(setting: string | undefined): Logger | undefined {
  if (setting === undefined) return undefined;
  // `DEBUG` and ` debug` as `debug`: one variable a team sets by hand in many places.
  const level = setting.trim().toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new TypeError(
      `Marketplace: MARKETPLACE_LOG must be one of ${LOG_LEVELS.join(', ')}, got "${setting}"`,
    );
  const write = (entry: string) => (message: string, details: LogDetails) =>
    console.error(`[marketplace] ${entry} ${message} ${JSON.stringify(details)}`);
  return { debug: level === 'debug' ? write('debug') : () => {}, warn: write('warn') };
}
