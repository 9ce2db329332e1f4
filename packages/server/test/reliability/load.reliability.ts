/**
 * Load: more traffic than the server can take, on loopback. The server sheds what it cannot serve
 * with quick `503`s (overload protection on event-loop delay) instead of letting requests queue
 * until they time out, its memory stays bounded, and it serves normally once the load stops.
 *
 * "Quick" is asserted as what it means, never as a duration: every `503` is counted with cause
 * `overload` (turned away by the protection, not answered by the request timeout), and every
 * request got an answer before the load generator's own timeout (5 s past the server's). The
 * latencies are printed, not asserted (speed is `pnpm bench`'s, as ratios).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REQUEST_TIMEOUT_MS } from '../../src/app.js';
import { type Orm, openDatabase } from '../../src/db/database.js';
import { MAX_CONCURRENT_REQUESTS } from '../../src/plugins/availability.js';
import { unavailableCounts } from '../metrics-text.js';
import type { LoadOptions, LoadResult } from './load-worker.js';
import {
  createTestDatabase,
  createUser,
  type Instance,
  listen,
  percentile,
  send,
  type TestDatabase,
  type TestUser,
} from './support.js';

/**
 * Overload protection as tested: the server's default cap on requests in progress, and an
 * event-loop delay limit far below the default 1 s so that it engages too (sampled every 100 ms:
 * a sample window with no tick at all counts as infinite delay, so it must be longer than one
 * request's own CPU time).
 */
const OVERLOAD = {
  maxEventLoopDelay: 100,
  sampleInterval: 100,
  maxConcurrentRequests: MAX_CONCURRENT_REQUESTS,
};
/** 200 connections, each sending its next request as soon as the last is answered, for 8 s. */
const LOAD = { connections: 200, duration: 8 };
/** Stated bounds: heap after the load (after a GC) and peak RSS during it, above the level before. */
const MAX_HEAP_GROWTH = 64 * 1024 * 1024;
const MAX_RSS_GROWTH = 512 * 1024 * 1024;

const MiB = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** A 4 000-character Markdown brief: rendering and sanitizing it on every show costs real CPU time. */
function longBrief(): string {
  const section = (i: number) =>
    `## Section ${i}\n\nSome **bold** and _italic_ text with a [link](https://example.com/${i}), ` +
    '`inline code` and <b>raw html</b>.\n\n- one\n- two\n  - nested\n\n> quoted\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n';
  let brief = '';
  for (let i = 0; brief.length + section(i).length <= 4_000; i++) brief += section(i);
  return brief;
}

function runLoad(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./load-worker.ts', import.meta.url), { workerData: options });
    worker.once('message', (result: LoadResult) => {
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

function collectGarbage() {
  (globalThis as { gc?: () => void }).gc?.();
}

let db: TestDatabase;
let orm: Orm;
let dataDir: string;
let server: Instance;
let owner: TestUser;
/** The expensive show: a collab with a long brief. */
let path: string;
const idleMs: number[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'mkt-rel-load-'));
  orm = await openDatabase({ url: db.url, dataDir });
  owner = await createUser(orm);
  // Set-up goes through an instance without overload protection: start-up work (module loading,
  // the first queries) lags the event loop and would be answered 503.
  const setup = await listen(orm);
  try {
    const org = await send(setup.url, 'POST', '/organizations.json', {
      token: owner.token,
      body: { organization: { name: 'Loaded' } },
    });
    const orgId = org.json<{ id: string }>().id;
    const collab = await send(setup.url, 'POST', `/organizations/${orgId}/collabs.json`, {
      token: owner.token,
      body: { collab: { name: 'Heavy', brief: longBrief() } },
    });
    expect(collab.status).toBe(201);
    path = `/organizations/${orgId}/collabs/${collab.json<{ id: string }>().id}.json`;
    // What one request costs when the server is idle.
    for (let i = 0; i < 20; i++) {
      const answer = await send(setup.url, 'GET', path, { token: owner.token });
      expect(answer.status).toBe(200);
      idleMs.push(answer.ms);
    }
  } finally {
    await setup.close();
  }
  // The database check at five times its default pace: the load must never make it take the
  // healthy database for down (which would turn every request away with cause `database`).
  server = await listen(orm, { overload: OVERLOAD, config: { databaseCheckIntervalMs: 200 } });
});

afterAll(async () => {
  await server?.close();
  await orm?.close(true);
  await db?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('load beyond capacity', () => {
  it('sheds it with quick 503s, keeps memory bounded, and serves normally when it stops', async () => {
    // The 503s this test's own requests get (before and after the load) are counted too.
    let own503 = 0;
    const show = async () => {
      const answer = await send(server.url, 'GET', path, { token: owner.token });
      if (answer.status === 503) own503 += 1;
      return answer;
    };
    await vi.waitFor(async () => expect((await show()).status).toBe(200), { timeout: 5_000, interval: 20 });
    collectGarbage();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    let peakHeap = before.heapUsed;
    let overDelay = 0;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peakRss = Math.max(peakRss, now.rss);
      peakHeap = Math.max(peakHeap, now.heapUsed);
      // Samples in which the event-loop delay was past the limit (the overload check's own figure).
      const { eventLoopDelay } = server.app.eventLoopSample();
      if (eventLoopDelay > OVERLOAD.maxEventLoopDelay) overDelay += 1;
    }, 100);
    let result: LoadResult;
    try {
      result = await runLoad({
        url: server.url,
        path,
        token: owner.token,
        ...LOAD,
        timeout: REQUEST_TIMEOUT_MS / 1000 + 5,
      });
    } finally {
      clearInterval(sampler);
    }
    collectGarbage();
    const after = process.memoryUsage();

    const shed = result.latencies['503'] ?? [];
    const served = result.latencies['200'] ?? [];
    const figures = {
      idleMs: { p50: percentile(idleMs, 50), p99: percentile(idleMs, 99) },
      requests: result.requests,
      statuses: result.statuses,
      latency503Ms: { p50: percentile(shed, 50), p99: percentile(shed, 99), max: percentile(shed, 100) },
      latency200Ms: {
        p50: percentile(served, 50),
        p99: percentile(served, 99),
        max: percentile(served, 100),
      },
      errors: result.errors,
      timeouts: result.timeouts,
      samplesOverDelayLimit: overDelay,
      memoryMiB: {
        rssBefore: MiB(before.rss),
        rssPeak: MiB(peakRss),
        rssAfter: MiB(after.rss),
        heapBefore: MiB(before.heapUsed),
        heapPeak: MiB(peakHeap),
        heapAfter: MiB(after.heapUsed),
      },
    };
    console.log(`load figures: ${JSON.stringify(figures)}`);

    // Never a timeout, a connection error or any status but 200 and 503.
    expect(result.errors).toBe(0);
    expect(result.timeouts).toBe(0);
    expect(Object.keys(result.statuses).sort()).toEqual(['200', '503']);
    // The protection engaged, and every 503 said when to come back.
    expect(shed.length).toBeGreaterThan(0);
    expect(result.retryAfter).toBe(shed.length);
    // Memory is bounded.
    expect(after.heapUsed - before.heapUsed).toBeLessThan(MAX_HEAP_GROWTH);
    expect(peakRss - before.rss).toBeLessThan(MAX_RSS_GROWTH);

    // The load has stopped: normal service again, ten requests in a row.
    let inARow = 0;
    const recent: number[] = [];
    await vi.waitFor(
      async () => {
        const answer = await show();
        inARow = answer.status === 200 ? inARow + 1 : 0;
        recent.push(answer.status);
        if (recent.length > 20) recent.shift();
        expect(inARow, `the last statuses after the load: ${recent.join(', ')}`).toBe(10);
      },
      { timeout: 10_000, interval: 0 },
    );
    // A 503 comes quickly: every one was the overload protection's (none waited for the request
    // timeout, nor for a database check: every check during the load found the database up).
    const metrics = await send(server.url, 'GET', '/metrics');
    expect(metrics.status).toBe(200);
    const unavailable = unavailableCounts(metrics.text);
    expect(unavailable).toEqual({
      overload: expect.any(Number),
      share: 0,
      database: 0,
      storage: 0,
      chaos: 0,
      timeout: 0,
      shutdown: 0,
      bodies: 0,
      migrations: 0,
    });
    // Every 503 seen was counted as overload; the server may have answered up to one more request
    // per connection that the load generator no longer read when it stopped.
    expect(unavailable.overload).toBeGreaterThanOrEqual(shed.length + own503);
    expect(unavailable.overload).toBeLessThanOrEqual(shed.length + own503 + LOAD.connections);
  });
});
