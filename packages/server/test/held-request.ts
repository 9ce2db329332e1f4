import { connect } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A request the server is still working on when its client hangs up: `hold` is a route's
 * `onRequest` hook that keeps the request there (as the token check would) until `release()`;
 * `hangUp(port, path)` sends `GET path`, waits until the hook holds it, closes the connection, and
 * resolves once the server has seen the hang-up.
 */
export function heldRequest() {
  // The hang-up's promise travels in an object: a promise resolved with a promise would wait for it.
  let entered: (held: { hungUp: Promise<void> }) => void = () => undefined;
  let release: () => void = () => undefined;
  return {
    hold: async (_request: FastifyRequest, reply: FastifyReply) => {
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      entered({ hungUp: new Promise<void>((resolve) => reply.raw.once('close', () => resolve())) });
      await held;
    },
    release: () => release(),
    async hangUp(port: number, path: string) {
      const inHook = new Promise<{ hungUp: Promise<void> }>((resolve) => {
        entered = resolve;
      });
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
      const { hungUp } = await inHook;
      socket.destroy();
      await closed;
      await hungUp;
    },
  };
}
