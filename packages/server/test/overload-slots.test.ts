/**
 * The cap on requests in progress (plugins/request-lifecycle.ts) gives back the slot of a request whose
 * client hangs up while the server works on it: the cap must not fill up with requests nobody
 * waits for (a load that stops all at once, a client that gives up).
 */
import { connect } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOverloadProtection } from '../src/plugins/availability.js';

const app = Fastify({ logger: false });
let entered: (request: { hungUp: Promise<void> }) => void;
let release: () => void = () => undefined;
let port: number;

beforeAll(async () => {
  await registerOverloadProtection(app, { maxEventLoopDelay: 0, maxConcurrentRequests: 1 });
  app.get(
    '/slow',
    {
      // Work done before the body and the handler (as the token check is): held until released.
      onRequest: async (_request, reply) => {
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        entered({ hungUp: new Promise<void>((resolve) => reply.raw.once('close', () => resolve())) });
        await held;
      },
    },
    async () => ({ ok: true }),
  );
  app.get('/fast', async () => ({ ok: true }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
});

afterAll(() => app.close());

describe('a client that hangs up while its request is worked on', () => {
  it('leaves no slot taken: the next request is served, not refused with 503', async () => {
    const inHook = new Promise<{ hungUp: Promise<void> }>((resolve) => {
      entered = resolve;
    });
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write('GET /slow HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    const { hungUp } = await inHook;
    socket.destroy();
    await closed;
    // The server sees the hang-up; then its work on the request ends, and its handler runs.
    await hungUp;
    release();
    await new Promise<void>((resolve) => setImmediate(resolve));

    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await app.inject({ method: 'GET', url: '/fast' })).statusCode);
    expect(statuses).toEqual([200, 200, 200]);
  });
});
