/**
 * The cap on requests in progress (plugins/request-lifecycle.ts) gives back the slot of a request whose
 * client hangs up while the server works on it: the cap must not fill up with requests nobody
 * waits for (a load that stops all at once, a client that gives up).
 */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOverloadProtection } from '../src/plugins/availability.js';
import { heldRequest } from './held-request.js';

const app = Fastify({ logger: false });
const slow = heldRequest();
let port: number;

beforeAll(async () => {
  await registerOverloadProtection(app, { maxEventLoopDelay: 0, maxConcurrentRequests: 1 });
  app.get(
    '/slow',
    {
      // Work done before the body and the handler (as the token check is): held until released.
      onRequest: slow.hold,
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
    // The server sees the hang-up; then its work on the request ends, and its handler runs.
    await slow.hangUp(port, '/slow');
    slow.release();
    await new Promise<void>((resolve) => setImmediate(resolve));

    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await app.inject({ method: 'GET', url: '/fast' })).statusCode);
    expect(statuses).toEqual([200, 200, 200]);
  });
});
