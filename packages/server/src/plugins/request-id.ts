import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { REQUEST_ID_HEADER, REQUEST_ID_PATTERN } from '@app/schemas';
import type { FastifyInstance } from 'fastify';

/**
 * Fastify `genReqId`: the request id of log lines and of `X-Request-Id` is the client's when it
 * is safe to log, ours otherwise (Fastify's own `requestIdHeader` would adopt any value unchecked).
 */
export function requestIdOf(request: IncomingMessage): string {
  const sent = request.headers[REQUEST_ID_HEADER];
  return typeof sent === 'string' && REQUEST_ID_PATTERN.test(sent) ? sent : randomUUID();
}

/** Every answer carries its request's id in `X-Request-Id`. */
export function registerRequestId(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done(null, payload);
  });
}
