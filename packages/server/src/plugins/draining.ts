import type { FastifyInstance } from 'fastify';

/**
 * While shutting down, in-flight requests are answered with `Connection: close`, so that
 * keep-alive sockets do not hold the shutdown open.
 */
export function registerDraining(app: FastifyInstance): void {
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });
}
