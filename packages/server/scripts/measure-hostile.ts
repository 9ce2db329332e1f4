/**
 * Figures of docs/reliability.md, "Hostile clients": brief rendering (main-thread blocking, p99
 * over the fuzz corpus, /health during concurrent worst-case PATCHes) and multipart memory.
 * Run: `pnpm --filter @app/server exec node --expose-gc --import tsx --conditions=@app/source scripts/measure-hostile.ts`
 */
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import fc from 'fast-check';
import { buildApp } from '../src/app.js';
import { migrate, openDatabase } from '../src/db/database.js';
import { renderBrief } from '../src/modules/briefs/brief.js';
import { renderBriefHtml } from '../src/modules/briefs/brief.worker.js';
import { createUserWithToken } from '../src/modules/users/users.service.js';
import { markdownBrief } from '../test/markdown-briefs.js';
import { testConfig } from '../test/test-config.js';

const SLOW = '*~_'.repeat(6_666);
const DEEP = `${'>'.repeat(19_998)} a`;
const ms = (n: number) => `${n.toFixed(1)} ms`;
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] as number;

async function maxLoopDelayDuring(work: () => Promise<unknown>) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  await work();
  h.disable();
  return h.max / 1e6;
}

// 1. Blocking of the event loop by one worst-case brief: before (rendered on the main thread), after (worker).
for (const [name, source] of [
  ['super-linear *~_ run', SLOW],
  ['20 000 nested >', DEEP],
] as const) {
  const started = performance.now();
  let outcome = 'rendered';
  try {
    renderBriefHtml(source);
  } catch (error) {
    outcome = (error as Error).constructor.name;
  }
  const before = performance.now() - started;
  const after = await maxLoopDelayDuring(() => renderBrief(source).catch(() => undefined));
  console.log(
    `brief ${name}: main thread blocked ${ms(before)} (${outcome}) before; event-loop delay max ${ms(after)} after`,
  );
}

// 2. Render time over the fuzz corpus (worker round trip), and the largest event-loop delay meanwhile.
const corpus = fc.sample(markdownBrief, { numRuns: 300, seed: 20261123 });
const times: number[] = [];
let refused = 0;
const delay = await maxLoopDelayDuring(async () => {
  for (const source of corpus) {
    const started = performance.now();
    await renderBrief(`${source}\n<!-- ${times.length} -->`).catch(() => {
      refused += 1;
    });
    times.push(performance.now() - started);
  }
});
console.log(
  `fuzz corpus (${corpus.length} briefs, ${refused} refused): render p50 ${ms(quantile(times, 0.5))}, p99 ${ms(quantile(times, 0.99))}, max ${ms(Math.max(...times))}; event-loop delay max ${ms(delay)}`,
);

// 3. GET /health while 6 worst-case PATCHes run, and multipart memory.
const dataDir = mkdtempSync(join(tmpdir(), 'mkt-measure-'));
const orm = await openDatabase({ url: 'pglite://memory', dataDir });
await migrate(orm);
const config = testConfig(dataDir, 'measure-helpers-key-0123456789abcdef', {
  maxUploadBytes: 5 * 1024 * 1024,
});
const app = await buildApp({
  config,
  orm,
  logger: false,
  overload: { maxEventLoopDelay: 0, maxConcurrentRequests: 64 },
});
const { access_token } = await createUserWithToken(
  orm.em.fork(),
  { name: 'M', email: 'm@example.com' },
  { permission: 'write' },
);
const auth = { authorization: `Bearer ${access_token.token}`, 'content-type': 'application/json' };
const org = (
  await app.inject({
    method: 'POST',
    url: '/organizations.json',
    headers: auth,
    payload: { organization: { name: 'A' } },
  })
).json();
const collab = (
  await app.inject({ method: 'POST', url: `/organizations/${org.id}/collabs.json`, headers: auth })
).json();
const patches = Array.from({ length: 6 }, (_, i) =>
  app.inject({
    method: 'PATCH',
    url: `/organizations/${org.id}/collabs/${collab.id}.json`,
    headers: auth,
    payload: { collab: { brief: `${SLOW.slice(0, -2)}${i}` } },
  }),
);
const health: number[] = [];
const until = Promise.all(patches);
let done = false;
void until.then(() => {
  done = true;
});
while (!done) {
  const started = performance.now();
  await app.inject('/health');
  health.push(performance.now() - started);
  // A client polling every 10 ms (in-process requests that never wait on I/O would starve timers).
  await new Promise((resolve) => setTimeout(resolve, 10));
}
const statuses = (await until).map((r) => r.statusCode);
console.log(
  `6 concurrent worst-case PATCHes: statuses ${statuses.join(',')}; GET /health max ${ms(Math.max(...health))} over ${health.length} requests`,
);

const field = (name: string, size: number) =>
  Buffer.from(`--B\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${'x'.repeat(size)}\r\n`);
/** Over a real socket, chunked (no Content-Length, so only the streaming caps can stop it). */
async function multipartHeapGrowth() {
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  globalThis.gc?.();
  const usage = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const before = usage();
  let peak = before;
  const status = await new Promise<number>((resolve) => {
    const req = request(`${address}/organizations.json`, {
      method: 'POST',
      headers: {
        authorization: auth.authorization,
        'content-type': 'multipart/form-data; boundary=B',
        'transfer-encoding': 'chunked',
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(-1));
    void (async () => {
      for (let i = -1; i < 150; i++) {
        const part = i < 0 ? field('organization[name]', 4) : field(`junk${i}`, 1024 * 1024);
        peak = Math.max(peak, usage());
        if (req.destroyed) return;
        if (!req.write(part)) await new Promise((r) => req.once('drain', r));
      }
      req.end('--B--\r\n');
    })();
  });
  peak = Math.max(peak, usage());
  return { status, growthMiB: (peak - before) / 2 ** 20 };
}
const mp = await multipartHeapGrowth();
console.log(
  `150 unknown 1 MiB multipart fields (chunked): ${mp.status}, peak memory growth ${mp.growthMiB.toFixed(1)} MiB`,
);

// 200 connections trickling bodies (half to unknown routes, half authenticated to a known one),
// then an honest client reads 50 times.
const { port } = app.server.address() as AddressInfo;
const tricklers = Array.from({ length: 200 }, (_, i) => {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  const target = i % 2 === 0 ? `/nowhere/${i}.json` : '/organizations.json';
  const token = i % 2 === 0 ? '' : `authorization: ${auth.authorization}\r\n`;
  socket.write(
    `POST ${target} HTTP/1.1\r\nhost: x\r\n${token}content-type: application/json\r\ncontent-length: 100000\r\n\r\n{`,
  );
  return socket;
});
await new Promise((resolve) => setTimeout(resolve, 200));
const honest: number[] = [];
const honestStatuses = new Map<number, number>();
for (let i = 0; i < 50; i++) {
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/organizations/${org.id}.json`, {
    headers: { authorization: auth.authorization },
  });
  await res.arrayBuffer();
  honest.push(performance.now() - started);
  honestStatuses.set(res.status, (honestStatuses.get(res.status) ?? 0) + 1);
}
for (const socket of tricklers) socket.destroy();
console.log(
  `200 trickling connections: honest reads ${[...honestStatuses].map(([k, v]) => `${v} × ${k}`).join(', ')}, p50 ${ms(quantile(honest, 0.5))}, max ${ms(Math.max(...honest))}`,
);
await app.close();
await orm.close(true);
process.exit(0);
