import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { REQUEST_ID_HEADER, REQUEST_ID_PATTERN } from '@app/schemas';
import type { FastifyServerOptions } from 'fastify';

/**
 * The id a client sent in `X-Request-Id`, when it is safe to log (1 to 128 of `A-Z a-z 0-9 . _ :
 * -`); `undefined` otherwise. It is never the request's id: two clients (or one client's retries)
 * may send the same value.
 */
export function clientRequestIdOf(request: IncomingMessage): string | undefined {
  const sent = request.headers[REQUEST_ID_HEADER];
  return typeof sent === 'string' && REQUEST_ID_PATTERN.test(sent) ? sent : undefined;
}

/**
 * Fastify's request-id settings. The request's id (`reqId` on every log line, `X-Request-Id` on
 * the answer) is always the server's own, a fresh UUID per request. A client's safe
 * `X-Request-Id` is logged beside it as `clientRequestId` on every line of that request, so
 * both ids find the same lines. The header is set by the request lifecycle's `onSend`
 * (plugins/request-lifecycle.ts).
 */
export const requestIdOptions = {
  requestIdHeader: false,
  genReqId: () => randomUUID(),
  childLoggerFactory(logger, bindings, options, rawRequest) {
    const clientRequestId = clientRequestIdOf(rawRequest as IncomingMessage);
    return logger.child(clientRequestId ? { ...bindings, clientRequestId } : bindings, options);
  },
} satisfies Pick<FastifyServerOptions, 'requestIdHeader' | 'genReqId' | 'childLoggerFactory'>;
