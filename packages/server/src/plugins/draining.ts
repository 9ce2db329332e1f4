import type { FastifyInstance } from 'fastify';
import { sendHttpError, unavailable } from '../http/errors.js';

/**
 * While shutting down, in-flight requests are answered with `Connection: close`, so that
 * keep-alive sockets do not hold the shutdown open; a request that arrives then (on a keep-alive
 * connection still open) gets the documented transient `503` with `Retry-After: 1` before any work
 * is done, so that its client retries on another instance. Fastify's own answer to those
 * (`return503OnClosing`, turned off in app.ts) has neither the documented body nor `Retry-After`.
 */
export function registerDraining(app: FastifyInstance): void {
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!draining) return done();
    sendHttpError(reply, unavailable('shutdown'));
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });
}
