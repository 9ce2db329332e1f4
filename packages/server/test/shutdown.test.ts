/**
 * Shutting down: a request that reaches the server while it closes (on a keep-alive connection
 * that is still open) gets the documented transient 503, which a client retries elsewhere.
 */
import type { AddressInfo } from 'node:net';
import { SERVICE_UNAVAILABLE_MESSAGE } from '@app/schemas';
import { Client } from 'undici';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { useTestServer } from './harness.js';

const server = useTestServer();

describe('while the server shuts down', () => {
  it('answers a request on an open keep-alive connection with 503, the error body and Retry-After', async () => {
    const app = await buildApp({
      config: server.config,
      orm: server.orm,
      logger: false,
      overload: { maxEventLoopDelay: 0 },
    });
    // Holds the shutdown between "closing" and the listening socket being closed, as in-flight
    // work or a slow preClose hook would.
    let closing!: () => void;
    const closingStarted = new Promise<void>((resolve) => {
      closing = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    app.addHook('preClose', async () => {
      closing();
      await released;
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const client = new Client(`http://127.0.0.1:${port}`, { pipelining: 1 });
    try {
      const first = await client.request({ path: '/health', method: 'GET' });
      expect(first.statusCode).toBe(200);
      await first.body.dump();

      const closed = app.close();
      await closingStarted;
      const res = await client.request({
        path: '/organizations.json',
        method: 'GET',
        headers: { authorization: 'Bearer mkt_whatever' },
      });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.headers.connection).toBe('close');
      expect(res.headers['x-request-id']).toBeTruthy();
      expect(await res.body.json()).toEqual({ error: SERVICE_UNAVAILABLE_MESSAGE });
      release();
      await closed;
    } finally {
      release();
      await client.close().catch(() => {});
    }
  });
});
