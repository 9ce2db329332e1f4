import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import PinoPretty from 'pino-pretty';
import type { LogFormat } from '../config.js';

/**
 * A word of a query parameter's name that marks its value as a secret: `key`, `apikey`,
 * `secret`, `password`, `token`, `signature`, `sig`, `auth…` (not `author…`), `session…`,
 * `credential(s)`, `jwt`. A name is split into words at `_`, `-`, `.`, brackets and camelCase,
 * so `api_key`, `apiKey`, `X-Amz-Signature`, `client_secret` and `my_token` are secrets, and
 * `keyword` or `author` are not.
 */
const SECRET_WORD =
  /^(?:[a-z]*key|secrets?|passw(?:or)?ds?|pwd|[a-z]*tokens?|signature|sig|(?!authors?$)auth[a-z]*|session[a-z]*|credentials?|jwt|otp)$/;

/** Whether a query parameter's name looks like a secret's (see {@link SECRET_WORD}). */
export function isSecretName(name: string): boolean {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .some((word) => SECRET_WORD.test(word));
}

const REDACTED = '[REDACTED]';

const decoded = (text: string): string | undefined => {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
};

/** A query string with the secrets' values redacted, also inside URLs carried in a value. */
function redactQuery(query: string, depth: number): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === '') return pair;
      if (isSecretName(decoded(name) ?? name)) return `${name}=${REDACTED}`;
      // A value that holds a query of its own (`?website=https%3A…%3Fapi_key%3D…`): redacted
      // inside, then encoded again, with the marker left readable.
      const inner = depth > 0 ? decoded(value) : undefined;
      if (inner === undefined || !inner.includes('=')) return pair;
      const redacted = redactIn(inner, depth - 1);
      if (redacted === inner) return pair;
      return `${name}=${encodeURIComponent(redacted).replaceAll(encodeURIComponent(REDACTED), REDACTED)}`;
    })
    .join('&');
}

/** `text` with its query (after `?`, or the whole text when it has none) redacted. */
function redactIn(text: string, depth: number): string {
  const q = text.indexOf('?');
  const hash = text.indexOf('#', q + 1);
  const end = hash < 0 ? text.length : hash;
  return `${text.slice(0, q + 1)}${redactQuery(text.slice(q + 1, end), depth)}${text.slice(end)}`;
}

/**
 * The URL as logged: the values of query parameters named like secrets replaced by
 * `[REDACTED]`, also in a URL (or query) carried percent-encoded in a parameter's value, down to
 * three levels of encoding.
 */
export function redactUrl(url: string): string {
  return url.includes('?') ? redactIn(url, 3) : url;
}

/**
 * How the log is written: human-readable lines (pino-pretty, coloured) for a person at a
 * terminal, JSON lines for anything else (a pipe, a file, a log collector), unless the setting
 * says which.
 */
export function logFormatFor(setting: LogFormat, output: { isTTY?: boolean }): 'json' | 'pretty' {
  if (setting !== 'auto') return setting;
  return output.isTTY === true ? 'pretty' : 'json';
}

/**
 * A request's client, read when it arrives ({@link RequestLog.incomingRequest}): by the time its
 * line is written, the connection may be gone (a proxy's end of it read before the write of the
 * answer completed), and a destroyed socket has no address or port.
 */
const clients = new WeakMap<FastifyRequest, { address: string | undefined; port: number | undefined }>();

/**
 * The pino settings of the server's log: the level, the format, and requests logged without
 * secrets (the `Authorization` and `Cookie` headers, and secret query parameters in the URL).
 */
export function loggerOptions(level: string, format: 'json' | 'pretty' = 'json') {
  return {
    level,
    redact: ['req.headers.authorization', 'req.headers.cookie'],
    serializers: {
      req: (request: FastifyRequest) => {
        const client = clients.get(request);
        return {
          method: request.method,
          url: redactUrl(request.originalUrl),
          host: request.host,
          remoteAddress: client ? client.address : request.ip,
          remotePort: client ? client.port : request.socket?.remotePort,
        };
      },
    },
    // In-process (no transport worker): the lines come out in order with the process's own output.
    ...(format === 'pretty' && {
      stream: PinoPretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }),
    }),
  };
}

/** Whether `log` writes lines at `level` (a logger that cannot tell is taken to). */
const writes = (log: FastifyBaseLogger, level: string) =>
  (log as Partial<{ isLevelEnabled(level: string): boolean }>).isLevelEnabled?.(level) ?? true;

/** Probes that load balancers and scrapers call every few seconds: logged only at `debug`. */
const PROBE_ROUTES = new Set(['/health', '/ready', '/metrics']);

/**
 * The server's request log (Fastify's `logController`): one line per request, when its answer
 * has been sent, with the method, the route template (`(unmatched)` for an unknown path), the
 * status, the time in milliseconds (`responseTime`), the request id (`reqId`, from the
 * request's logger) and the URL without secrets. At `info`, except for `/health`, `/ready` and
 * `/metrics`, which load balancers and scrapers call every few seconds: those are logged at
 * `debug` (seen with `LOG_LEVEL=debug`). Fastify's own "incoming request" line is written at
 * `debug` only; its "request completed" and "Route … not found" lines are not written.
 */
export class RequestLog extends LogController {
  /** At `debug` only: the line that says a request has arrived, before it is answered. */
  override incomingRequest(request: FastifyRequest): void {
    clients.set(request, { address: request.ip, port: request.socket?.remotePort });
    request.log.debug({ req: request }, 'incoming request');
  }

  override routeNotFound(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    // At `warn` and above a request that went well writes nothing: nothing to build for it.
    if (!error && !writes(reply.log, 'info')) return;
    const route = request.is404 ? '(unmatched)' : (request.routeOptions.url ?? '(unmatched)');
    const fields = {
      req: request,
      route,
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
    };
    const message = `${request.method} ${route} ${reply.statusCode}`;
    if (error) reply.log.error({ ...fields, err: error }, message);
    else if (PROBE_ROUTES.has(route)) reply.log.debug(fields, message);
    else reply.log.info(fields, message);
  }
}
