import type { FastifyRequest } from 'fastify';
import PinoPretty from 'pino-pretty';

/** Query parameters whose values are secrets some clients put in URLs; never logged. */
const SECRET_PARAMS = /([?&](?:access_token|token)=)[^&#]*/gi;

/** The URL as logged: the values of secret query parameters replaced by `[REDACTED]`. */
export function redactUrl(url: string): string {
  return url.includes('?') ? url.replace(SECRET_PARAMS, '$1[REDACTED]') : url;
}

/** `LOG_FORMAT`: `auto` chooses by where the log goes (see {@link logFormatFor}). */
export type LogFormat = 'auto' | 'json' | 'pretty';

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
 * The pino settings of the server's log: the level, the format, and requests logged without
 * secrets (the `Authorization` and `Cookie` headers, and secret query parameters in the URL).
 */
export function loggerOptions(level: string, format: 'json' | 'pretty' = 'json') {
  return {
    level,
    redact: ['req.headers.authorization', 'req.headers.cookie'],
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
    // In-process (no transport worker): the lines come out in order with the process's own output.
    ...(format === 'pretty' && {
      stream: PinoPretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }),
    }),
  };
}
