/**
 * The event-loop delay of the server's own start is not overload (plugins/pressure.ts):
 * on a busy machine the start holds the event loop for seconds, and the overload check's first samples
 * measure it. A server that has just started listening must answer its first requests, not turn
 * them away with `503` until a later sample clears the verdict. (That a lagging event loop after
 * the start is still answered `503` is the load test's: test/reliability/load.reliability.ts.)
 */
import Fastify from 'fastify';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { registerOverloadProtection } from '../src/plugins/availability.js';

const MAX_EVENT_LOOP_DELAY_MS = 20;
const SAMPLE_INTERVAL_MS = 500;
const app = Fastify({ logger: false });
afterAll(() => app.close());

/** Holds the event loop, as loading the routes and the document does on a busy machine. */
function holdEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: nothing else runs
  }
}

describe('the event-loop delay of the start', () => {
  it('turns none of the first requests away', async () => {
    await registerOverloadProtection(app, {
      maxEventLoopDelay: MAX_EVENT_LOOP_DELAY_MS,
      sampleInterval: SAMPLE_INTERVAL_MS,
    });
    app.get('/', async () => ({ ok: true }));
    await app.register(async () => holdEventLoop(1_500));
    await app.ready();
    // The sample of the start is in: by itself, it is a verdict of overload.
    await vi.waitFor(
      () => expect(app.eventLoopSample().eventLoopDelay).toBeGreaterThan(MAX_EVENT_LOOP_DELAY_MS),
      {
        timeout: 5_000,
        interval: 5,
      },
    );

    const answer = await app.inject('/');
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ ok: true });
  });
});
