import type { FastifyRequest } from 'fastify';

/** Query parameters whose values are secrets some clients put in URLs; never logged. */
const SECRET_PARAMS = /([?&](?:access_token|token)=)[^&#]*/gi;

/** The URL as logged: the values of secret query parameters replaced by `[REDACTED]`. */
export function redactUrl(url: string): string {
  return url.includes('?') ? url.replace(SECRET_PARAMS, '$1[REDACTED]') : url;
}

/**
 * The pino settings of the server's log: the level, and requests logged without secrets (the
 * `Authorization` and `Cookie` headers, and secret query parameters in the URL).
 */
export function loggerOptions(level: string) {
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
  };
}
