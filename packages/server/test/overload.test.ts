import { describe, expect, it, vi } from 'vitest';
import { useTestServer } from './harness.js';

const server = useTestServer({}, { overload: { maxEventLoopDelay: 200, sampleInterval: 10 } });

/** Keeps the event loop busy, as a CPU-bound overload would. */
function blockEventLoop(ms: number) {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy
  }
}

describe('overload protection', () => {
  it('answers 503 with Retry-After: 1 at once while the event loop lags, then serves again', async () => {
    const { token } = await server.createUser();
    blockEventLoop(1_000);
    await vi.waitFor(async () => {
      const res = await server.get('/me/access_tokens.json', { token });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.json()).toEqual({ error: 'Service temporarily unavailable' });
    });
    await vi.waitFor(
      async () => {
        expect((await server.get('/me/access_tokens.json', { token })).statusCode).toBe(200);
      },
      { timeout: 10_000, interval: 20 },
    );
  });
});
