/*
 * A create whose work outlives the request's deadline: the client has had its `503` (cause
 * `timeout`, `Retry-After: 1`: "try again"), so nothing of the late work may be kept — a kept
 * collab would be a duplicate when the client tries again — and its end is not logged as an
 * error. Here the `website` prefill waits on a page the test holds (`/held`) past a 1 s deadline;
 * the test waits for events (the page's request, the log line), never for a time.
 */
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUpOrganization } from '../../../test/fixtures/organization.js';
import { useTestServer } from '../../../test/harness.js';
import { type PageServer, startPageServer } from '../../../test/page-server.js';
import { buildApp } from '../../app.js';

const server = useTestServer({ prefillAllowPrivate: true }, {}, { keepData: true });

describe('a create whose work outlives its deadline', () => {
  let page: PageServer;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let origin: string;
  const lines: { level: number; msg: string }[] = [];
  const waiting: { test: (line: { level: number; msg: string }) => boolean; resolve: () => void }[] = [];
  const logged = (test: (line: { level: number; msg: string }) => boolean) =>
    lines.some(test) ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ test, resolve }));

  beforeAll(async () => {
    page = await startPageServer();
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const text of String(chunk).split('\n').filter(Boolean)) {
          const line = JSON.parse(text) as { level: number; msg: string };
          lines.push(line);
          for (const waiter of waiting.filter((w) => w.test(line))) waiter.resolve();
        }
        done();
      },
    });
    app = await buildApp({
      config: server.config,
      orm: server.orm,
      logger: { level: 'info', stream },
      overload: { maxEventLoopDelay: 0 },
      requestTimeout: 1_000,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
    await page?.close();
  });

  it('is answered 503, keeps nothing once its work ends, and logs that end at info', async () => {
    const org = await setUpOrganization(server);
    const res = await fetch(
      `${origin}/organizations/${org.id}/collabs.json?website=${encodeURIComponent(`${page.origin}/held`)}`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${org.admin.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ collab: { name: 'Late' } }),
      },
    );
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    // The prefill's page is let go (one not yet asked for ends the prefill at its own timeout).
    page.release();
    // The late work's end, whatever it says: the line that follows the request's own (Fastify
    // logged `Promise errored, but reply.sent = true was set` at error).
    const lateEnd = (line: { msg: string }) =>
      !/^(Server listening|request timed out|POST \/organizations)/.test(line.msg);
    await logged(lateEnd);
    expect(lines.filter(lateEnd).map(({ level, msg }) => ({ level, msg }))).toEqual([
      { level: 30, msg: 'handler ended after its request was answered already' },
    ]);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    const counted = await server.sql<{ count: number }>(
      'select count(*)::int as count from collabs where organization_id = ?',
      [org.id],
    );
    expect(counted).toEqual([{ count: 0 }]);
  });
});
