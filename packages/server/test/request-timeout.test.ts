/**
 * The request timeout holds for requests with a body too: a `PATCH` whose work waits on a row
 * another transaction holds (PostgreSQL: a row lock; PGlite, one connection: the open
 * transaction) is answered `503` with `Retry-After: 1` once the timeout passes, and counted as
 * cause `timeout` — not answered whenever the lock goes.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { useTestServer } from './harness.js';
import { sample } from './metrics-text.js';

describe('a request with a body whose work waits on a lock', () => {
  const server = useTestServer({}, {}, { keepData: true });
  let app: Awaited<ReturnType<typeof buildApp>>;
  let origin: string;
  let orgId: string;
  let reachedTheHandler!: () => void;
  const handlerReached = new Promise<void>((resolve) => {
    reachedTheHandler = resolve;
  });

  beforeAll(async () => {
    const { token } = await server.createUser();
    orgId = (
      await server.post('/organizations.json', { token, body: { organization: { name: 'Acme' } } })
    ).json().id;
    // A timeout short for a test, long enough for the scrape of the metrics on a busy machine.
    app = await buildApp({
      config: server.config,
      orm: server.orm,
      logger: false,
      overload: { maxEventLoopDelay: 0 },
      requestTimeout: 1_000,
    });
    // The body is read and parsed; then the work updates the row, and waits for the lock.
    app.patch('/held/:id', async (request) => {
      const { id } = request.params as { id: string };
      reachedTheHandler();
      await server.orm.em
        .fork()
        .execute('update organizations set name = ? where id = ?', [
          (request.body as { name: string }).name,
          id,
        ]);
      return { updated: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  it('is answered 503 with Retry-After: 1 once the request timeout passes, counted as timeout', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = server.orm.em.fork().transactional(async (em) => {
      await em.execute('select id from organizations where id = ? for update', [orgId]);
      locked();
      await released;
    });
    try {
      await lockTaken;
      const res = await fetch(`${origin}/held/${orgId}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Renamed while locked' }),
      });
      await handlerReached;
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toEqual({ error: 'Service temporarily unavailable' });
    } finally {
      release();
      await holder;
    }
    const scrape = await app.inject({ url: '/metrics' });
    expect(scrape.statusCode).toBe(200);
    const metrics = scrape.body;
    expect(sample(metrics, 'http_unavailable_responses_total', { cause: 'timeout' })).toBe(1);
    expect(sample(metrics, 'http_requests_total', { route: '/held/:id', status_code: '503' })).toBe(1);
  });
});
