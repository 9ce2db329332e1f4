/**
 * Figures of docs/reliability.md, "Hostile clients". Every scenario starts its own server (buildApp
 * over an in-memory PGlite, the started server's default overload protection) listening on
 * 127.0.0.1, talks to it over real HTTP, and measures a victim (an ordinary client, sequential
 * requests) without the attack and then while it runs; the ratio is with / without.
 *
 *   0  round one: brief rendering (main-thread blocking, fuzz corpus), /health during 6 worst-case
 *      PATCHes, multipart memory, 200 trickling connections
 *   1  64 slow readers (a big response never read)       4  150 almost complete 5 MiB logo uploads
 *   2  64 render-bomb brief PATCHes from one user         5  MCP over HTTP: no credential, 300 sessions
 *   3  time until a request with a body queued behind     6  role re-check: an admin removed while
 *      the render work of 2 is answered or dropped           their brief PATCH waits for the renderer
 *
 * Run: `pnpm --filter @app/server run measure:hostile [--only=1,2]` (or MEASURE_ONLY=1,2). Every loop
 * is bounded in count and time; every status (503, a closed socket, a timeout) is counted, never
 * thrown, so the same script measures the code before and after the fixes of issue #25.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { migrate, type Orm, openDatabase } from '../src/db/database.js';
import { markdownBrief } from '../test/markdown-briefs.js';
import { testConfig } from '../test/test-config.js';

const SCENARIOS = ['0', '1', '2', '3', '4', '5', '6'] as const;
type Scenario = (typeof SCENARIOS)[number];
const onlyArg =
  process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length) ?? process.env.MEASURE_ONLY;
const selected = new Set<Scenario>(
  onlyArg
    ? SCENARIOS.filter((s) =>
        onlyArg
          .split(',')
          .map((x) => x.trim())
          .includes(s),
      )
    : SCENARIOS,
);

const HELPERS_KEY = 'measure-helpers-key-0123456789abcdef';
const MIB = 2 ** 20;
const SLOW = '*~_'.repeat(6_666);
const DEEP = `${'>'.repeat(19_998)} a`;
/** A worst-case brief of its own (refusals are not cached, but successes are). */
const bomb = (tag: string) => `${SLOW.slice(0, -tag.length)}${tag}`;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const ms = (n: number) => (n >= 1_000 ? `${(n / 1_000).toFixed(2)} s` : `${n.toFixed(1)} ms`);
const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;
const quantile = (xs: number[], q: number) =>
  xs.length === 0
    ? Number.NaN
    : ([...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] as number);
const ratio = (after: number, before: number) => (before > 0 ? `×${(after / before).toFixed(1)}` : '–');

/** What one request came to: its HTTP status, or `closed` (connection dropped), or `timeout` (ours). */
interface Sample {
  ms: number;
  status: string;
}
const countOf = (statuses: Iterable<string>) => {
  const counts = new Map<string, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([s, n]) => `${n}×${s}`)
    .join(' ');
};

/** Markdown rows of the summary printed at the end. */
const summary: string[][] = [];
const row = (...cells: string[]) => summary.push(cells);

// ---------------------------------------------------------------------------------------------
// The server under test, and plain HTTP calls to it.

interface Server {
  app: FastifyInstance;
  orm: Orm;
  url: string;
  port: number;
  dataDir: string;
}

async function startServer(): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mkt-measure-'));
  const orm = await openDatabase({ url: 'pglite://memory', dataDir });
  await migrate(orm);
  const config = testConfig(dataDir, HELPERS_KEY, { maxUploadBytes: 5 * MIB });
  // No `overload` option: the protection a started server has by default.
  const app = await buildApp({ config, orm, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { app, orm, url: `http://127.0.0.1:${port}`, port, dataDir };
}

async function stopServer(s: Server): Promise<void> {
  await Promise.race([s.app.close(), sleep(15_000)]);
  await Promise.race([s.orm.close(true), sleep(5_000)]);
  rmSync(s.dataDir, { recursive: true, force: true });
}

interface CallOptions {
  token?: string;
  json?: unknown;
  form?: FormData;
  timeoutMs?: number;
}

async function call(
  s: Server,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Sample & { body: unknown }> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const started = performance.now();
  try {
    const res = await fetch(`${s.url}${path}`, {
      method,
      headers,
      body: options.form ?? (options.json === undefined ? null : JSON.stringify(options.json)),
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { ms: performance.now() - started, status: String(res.status), body };
  } catch (error) {
    const status = (error as Error).name === 'TimeoutError' ? 'timeout' : 'closed';
    return { ms: performance.now() - started, status, body: undefined };
  }
}

/**
 * A set-up call, tried again (5 times at most) while the busy machine answers 503 or drops it
 * (the first brief rendered starts the render worker, which can take seconds here).
 */
async function setUp(what: string, send: () => Promise<Sample & { body: unknown }>) {
  let answer = await send();
  for (let i = 0; i < 5 && ['503', 'closed', 'timeout'].includes(answer.status); i++) {
    await sleep(1_000);
    answer = await send();
  }
  if (!/^2/.test(answer.status)) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer;
}

/** The `id` of a set-up call's JSON answer. */
async function idOf(what: string, send: () => Promise<Sample & { body: unknown }>): Promise<string> {
  const answer = await setUp(what, send);
  const id = (answer.body as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'string') throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return id;
}

let users = 0;
/** A user with a write token, made through the test helpers. */
async function newUser(s: Server, name: string): Promise<{ id: string; token: string }> {
  users += 1;
  const email = `user${users}@example.com`;
  const answer = await setUp('user', () =>
    call(s, 'POST', '/test_helpers/users.json', { token: HELPERS_KEY, json: { user: { name, email } } }),
  );
  const body = answer.body as { user?: { id: string }; access_token?: { token: string } };
  if (!body?.user || !body.access_token) throw new Error(`user: ${answer.status} ${JSON.stringify(body)}`);
  return { id: body.user.id, token: body.access_token.token };
}

const newOrganization = async (s: Server, token: string, name: string) =>
  idOf('organization', () =>
    call(s, 'POST', '/organizations.json', { token, json: { organization: { name } } }),
  );
const newCollab = async (s: Server, token: string, org: string) =>
  idOf('collab', () => call(s, 'POST', `/organizations/${org}/collabs.json`, { token }));

// ---------------------------------------------------------------------------------------------
// Victims: an ordinary client's sequential requests, without and with the attack.

interface Op {
  name: string;
  run(): Promise<Sample>;
}

/** A victim of its own (user and organization) that reads `/health` and its organization. */
async function healthAndShowVictim(s: Server): Promise<Op[]> {
  const v = await newUser(s, 'Victim');
  const victimOrg = await newOrganization(s, v.token, 'Victim org');
  return [
    { name: 'GET /health', run: () => call(s, 'GET', '/health') },
    {
      name: 'organization show',
      run: () => call(s, 'GET', `/organizations/${victimOrg}.json`, { token: v.token }),
    },
  ];
}

/** `rounds` rounds of every op in turn, `gapMs` apart, stopped after `maxMs`. */
async function victim(ops: Op[], { rounds, gapMs, maxMs }: { rounds: number; gapMs: number; maxMs: number }) {
  const samples = ops.map(() => [] as Sample[]);
  const deadline = performance.now() + maxMs;
  for (let round = 0; round < rounds && performance.now() < deadline; round++) {
    for (const [i, op] of ops.entries()) samples[i]?.push(await op.run());
    if (gapMs > 0) await sleep(gapMs);
  }
  return samples;
}

/** Prints (and adds to the summary) each op's p50/p99 without and with the attack. */
function compare(item: string, ops: Op[], without: Sample[][], withAttack: Sample[][], outcome: string) {
  for (const [i, op] of ops.entries()) {
    const base = (without[i] ?? []).map((x) => x.ms);
    const hit = withAttack[i] ?? [];
    const times = hit.map((x) => x.ms);
    const [b50, b99, a50, a99] = [
      quantile(base, 0.5),
      quantile(base, 0.99),
      quantile(times, 0.5),
      quantile(times, 0.99),
    ];
    console.log(
      `  victim ${op.name}: p50 ${ms(b50)} → ${ms(a50)} (${ratio(a50, b50)}), p99 ${ms(b99)} → ${ms(a99)} (${ratio(a99, b99)}); ` +
        `without ${countOf((without[i] ?? []).map((x) => x.status))}; with ${countOf(hit.map((x) => x.status))}`,
    );
    row(
      item,
      op.name,
      `${ms(b50)} → ${ms(a50)} (${ratio(a50, b50)})`,
      `${ms(b99)} → ${ms(a99)} (${ratio(a99, b99)})`,
      countOf(hit.map((x) => x.status)),
      i === 0 ? outcome : '〃',
    );
  }
}

const memory = () => {
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed + m.arrayBuffers };
};
async function collectGarbage() {
  for (let i = 0; i < 3; i++) {
    globalThis.gc?.();
    await sleep(50);
  }
}
/** Samples memory every 100 ms; `stop()` returns the peaks. */
function memoryPeaks() {
  const peak = memory();
  const timer = setInterval(() => {
    const now = memory();
    peak.rss = Math.max(peak.rss, now.rss);
    peak.heap = Math.max(peak.heap, now.heap);
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      const now = memory();
      return { rss: Math.max(peak.rss, now.rss), heap: Math.max(peak.heap, now.heap) };
    },
  };
}

/** The status of a raw HTTP answer's first bytes. */
const statusLine = (chunk: Buffer) =>
  /^HTTP\/1\.[01] (\d{3})/.exec(chunk.toString('latin1', 0, 32))?.[1] ?? 'not HTTP';

/** Waits (bounded) until the brief renderer has no backlog: a plain brief PATCH answers quickly. */
async function drainRenderer(s: Server, token: string, org: string, collab: string) {
  const deadline = performance.now() + 300_000;
  for (let i = 0; performance.now() < deadline; i++) {
    const answer = await call(s, 'PATCH', `/organizations/${org}/collabs/${collab}.json`, {
      token,
      json: { collab: { brief: `drain ${Date.now()} ${i}` } },
      timeoutMs: 15_000,
    });
    if (answer.status === '200' && answer.ms < 1_500) return;
    await sleep(1_000);
  }
  console.log('  (the renderer still had a backlog after 300 s)');
}

// ---------------------------------------------------------------------------------------------
// 0. Round one: the figures of the first review, kept.

async function roundOne(s: Server) {
  const { renderBrief } = await import('../src/modules/briefs/brief.js');
  const { renderBriefHtml } = await import('../src/modules/briefs/brief.worker.js');
  const maxLoopDelayDuring = async (work: () => Promise<unknown>) => {
    const h = monitorEventLoopDelay({ resolution: 1 });
    h.enable();
    await work();
    h.disable();
    return h.max / 1e6;
  };

  // Blocking of the event loop by one worst-case brief: on the main thread (old), in the worker.
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
      `  brief ${name}: main thread blocked ${ms(before)} (${outcome}) on the main thread; event-loop delay max ${ms(after)} in the worker`,
    );
  }

  // Render time over the fuzz corpus (worker round trip), and the largest event-loop delay meanwhile.
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
    `  fuzz corpus (${corpus.length} briefs, ${refused} refused): render p50 ${ms(quantile(times, 0.5))}, p99 ${ms(quantile(times, 0.99))}, max ${ms(Math.max(...times))}; event-loop delay max ${ms(delay)}`,
  );

  // GET /health while 6 worst-case PATCHes run.
  const { token } = await newUser(s, 'M');
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const org = await newOrganization(s, token, 'A');
  const collab = await newCollab(s, token, org);
  const patches = Array.from({ length: 6 }, (_, i) =>
    s.app.inject({
      method: 'PATCH',
      url: `/organizations/${org}/collabs/${collab}.json`,
      headers: auth,
      payload: { collab: { brief: bomb(`r1-${i}`) } },
    }),
  );
  const health: number[] = [];
  const until = Promise.all(patches);
  let done = false;
  void until.then(() => {
    done = true;
  });
  for (let i = 0; !done && i < 5_000; i++) {
    const started = performance.now();
    await s.app.inject('/health');
    health.push(performance.now() - started);
    // A client polling every 10 ms (in-process requests that never wait on I/O would starve timers).
    await sleep(10);
  }
  const statuses = (await until).map((r) => r.statusCode);
  console.log(
    `  6 concurrent worst-case PATCHes: statuses ${statuses.join(',')}; GET /health max ${ms(Math.max(...health))} over ${health.length} requests`,
  );

  // 150 unknown 1 MiB multipart fields, over a real socket, chunked (only the streaming caps stop it).
  const field = (name: string, size: number) =>
    Buffer.from(`--B\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${'x'.repeat(size)}\r\n`);
  await collectGarbage();
  const before = memory().heap;
  let peak = before;
  const status = await new Promise<number>((resolve) => {
    const req = request(`${s.url}/organizations.json`, {
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
        peak = Math.max(peak, memory().heap);
        if (req.destroyed) return;
        if (!req.write(part)) await new Promise((r) => req.once('drain', r));
      }
      req.end('--B--\r\n');
    })();
  });
  peak = Math.max(peak, memory().heap);
  console.log(
    `  150 unknown 1 MiB multipart fields (chunked): ${status}, peak memory growth ${mib(peak - before)}`,
  );

  // 200 connections trickling bodies (half to unknown routes, half authenticated to a known one),
  // then an honest client reads 50 times.
  const tricklers = Array.from({ length: 200 }, (_, i) => {
    const socket = connect(s.port, '127.0.0.1');
    socket.on('error', () => undefined);
    const target = i % 2 === 0 ? `/nowhere/${i}.json` : '/organizations.json';
    const credential = i % 2 === 0 ? '' : `authorization: ${auth.authorization}\r\n`;
    socket.write(
      `POST ${target} HTTP/1.1\r\nhost: x\r\n${credential}content-type: application/json\r\ncontent-length: 100000\r\n\r\n{`,
    );
    return socket;
  });
  await sleep(200);
  const honest: Sample[] = [];
  for (let i = 0; i < 50; i++) honest.push(await call(s, 'GET', `/organizations/${org}.json`, { token }));
  for (const socket of tricklers) socket.destroy();
  const times50 = honest.map((x) => x.ms);
  console.log(
    `  200 trickling connections: honest reads ${countOf(honest.map((x) => x.status))}, p50 ${ms(quantile(times50, 0.5))}, max ${ms(Math.max(...times50))}`,
  );
  row('0', 'round one', '', '', '', 'see the log above');
}

// ---------------------------------------------------------------------------------------------
// 1. Slow readers: 64 clients ask for a big answer and never read it.

/** A client that sends a GET, reads the status line, then stops reading. */
function slowReader(port: number, path: string) {
  const socket = connect(port, '127.0.0.1');
  const reader = { socket, path, status: 'no answer', length: Number.NaN, received: 0, closed: false };
  socket.on('error', () => undefined);
  socket.once('data', (chunk: Buffer) => {
    reader.status = statusLine(chunk);
    const length = /\r\ncontent-length: *(\d+)/i.exec(chunk.toString('latin1', 0, 2_048))?.[1];
    if (length) reader.length = Number(length) + chunk.indexOf('\r\n\r\n') + 4;
    reader.received = chunk.length;
    socket.pause();
  });
  socket.on('close', () => {
    reader.closed = true;
  });
  socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`);
  return reader;
}

async function slowReaders(s: Server) {
  const owner = await newUser(s, 'Logo owner');
  const org = await newOrganization(s, owner.token, 'Big logo');
  const logo = Buffer.alloc(5 * MIB - 4_096);
  PNG_SIGNATURE.copy(logo);
  const form = new FormData();
  form.append('organization[logo]', new Blob([logo], { type: 'image/png' }), 'logo.png');
  const updated = await setUp('logo upload', () =>
    call(s, 'PATCH', `/organizations/${org}.json`, { token: owner.token, form }),
  );
  const logoUrl = (updated.body as { logo_url?: string }).logo_url;
  if (!logoUrl) throw new Error(`logo upload: ${updated.status} ${JSON.stringify(updated.body)}`);
  const script = '/docs/js/scalar.js';
  const paths = [script, new URL(logoUrl).pathname];
  for (const path of paths) {
    const probe = await call(s, 'GET', path);
    console.log(
      `  ${path}: ${probe.status}, ${typeof probe.body === 'string' ? mib(probe.body.length) : '?'}`,
    );
  }

  const ops = await healthAndShowVictim(s);
  const bounds = { rounds: 50, gapMs: 20, maxMs: 60_000 };
  const without = await victim(ops, bounds);

  await collectGarbage();
  const before = memory();
  const peaks = memoryPeaks();
  const readers = Array.from({ length: 64 }, (_, i) => slowReader(s.port, paths[i % 2] as string));
  await sleep(1_000);
  const withAttack = await victim(ops, bounds);
  const held = peaks.stop();

  // Then they read: an answer the server gave up on is cut short.
  for (const reader of readers) {
    reader.socket.on('data', (chunk: Buffer) => {
      reader.received += chunk.length;
    });
    reader.socket.resume();
  }
  const whole = (r: (typeof readers)[number]) => r.received >= r.length;
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline && readers.some((r) => !r.closed && !whole(r))) await sleep(100);
  const complete = readers.filter(whole).length;
  const cut = readers.filter((r) => r.closed && !whole(r)).length;
  for (const reader of readers) reader.socket.destroy();
  const outcome =
    `${countOf(readers.map((r) => r.status))}; read at the end: ${complete} whole, ${cut} cut by the server, ${readers.length - complete - cut} unfinished after 30 s; ` +
    `memory while held: rss +${mib(held.rss - before.rss)}, heap+arrayBuffers +${mib(held.heap - before.heap)}`;
  console.log(`  64 slow readers (32 × ${script}, 32 × the 5 MiB logo): ${outcome}`);
  compare('1 slow readers', ops, without, withAttack, outcome);
}

// PNG's signature: the server sniffs images by their first bytes.
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

// ---------------------------------------------------------------------------------------------
// 2 and 3. Render bombs: 64 concurrent worst-case brief PATCHes from one user.

interface BombRun {
  attack: Sample[];
  victimPatches: Sample[];
}
let bombRun: BombRun | undefined;

async function renderBombs(s: Server): Promise<BombRun> {
  const attacker = await newUser(s, 'Attacker');
  const attackerOrg = await newOrganization(s, attacker.token, 'Attacker org');
  const attackerCollab = await newCollab(s, attacker.token, attackerOrg);
  const v = await newUser(s, 'Victim');
  const org = await newOrganization(s, v.token, 'Victim org');
  const collab = await newCollab(s, v.token, org);
  let edits = 0;
  const edit = () =>
    call(s, 'PATCH', `/organizations/${org}/collabs/${collab}.json`, {
      token: v.token,
      json: {
        collab: { brief: `## Edit ${edits++}\n\nA *plain* brief with a [link](https://example.com).` },
      },
      timeoutMs: 300_000,
    });
  const show = () => call(s, 'GET', `/organizations/${org}/collabs/${collab}.json`, { token: v.token });
  /*
   * The victim's edits are sent on a clock (20, `everyMs` apart, each timed until answered or
   * dropped), so that a queue behind the attack does not leave a single sample; its shows meanwhile
   * one after another, for as long.
   */
  const victimRun = async (everyMs: number) => {
    const patches = Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        await sleep(i * everyMs);
        return edit();
      }),
    );
    const shows = await victim([{ name: 'collab show', run: show }], {
      rounds: 40,
      gapMs: everyMs / 2,
      maxMs: 20 * everyMs,
    });
    return [await patches, shows[0] ?? []];
  };
  const ops: Op[] = [
    { name: 'brief PATCH (20, sent on a clock)', run: edit },
    { name: 'collab show', run: show },
  ];
  const without = await victimRun(100);

  const attack = Promise.all(
    Array.from({ length: 64 }, (_, i) =>
      call(s, 'PATCH', `/organizations/${attackerOrg}/collabs/${attackerCollab}.json`, {
        token: attacker.token,
        json: { collab: { brief: bomb(`b${Date.now()}-${i}`) } },
        timeoutMs: 300_000,
      }),
    ),
  );
  await sleep(100);
  const withAttack = await victimRun(1_500);
  const answers = await attack;
  const times = answers.map((a) => a.ms);
  const outcome = `${countOf(answers.map((a) => a.status))}, answered p50 ${ms(quantile(times, 0.5))}, max ${ms(Math.max(...times))}`;
  console.log(`  attacker's 64 PATCHes: ${outcome}`);
  if (selected.has('2')) compare('2 render bombs (one user)', ops, without, withAttack, outcome);
  await drainRenderer(s, v.token, org, collab);
  return { attack: answers, victimPatches: withAttack[0] ?? [] };
}

function queuedBodies(run: BombRun) {
  const all = [...run.attack, ...run.victimPatches];
  const times = all.map((a) => a.ms);
  const over = all.filter((a) => a.ms > 10_000).length;
  const line =
    `${all.length} PATCHes with a body (64 attacker's, ${run.victimPatches.length} victim's): p99 ${ms(quantile(times, 0.99))}, ` +
    `max ${ms(Math.max(...times))}, over 10 s: ${over}; ${countOf(all.map((a) => a.status))}`;
  console.log(`  ${line}`);
  const victimTimes = run.victimPatches.map((a) => a.ms);
  row(
    '3 queued bodies',
    'brief PATCH (victim) / all PATCHes',
    `victim ${ms(quantile(victimTimes, 0.5))} / all ${ms(quantile(times, 0.5))}`,
    `victim ${ms(quantile(victimTimes, 0.99))} / all ${ms(quantile(times, 0.99))}; max ${ms(Math.max(...times))}`,
    countOf(all.map((a) => a.status)),
    `${over} of ${all.length} over 10 s`,
  );
}

// ---------------------------------------------------------------------------------------------
// 4. 150 connections, each holding an almost complete 5 MiB logo upload.

/**
 * The uploading clients, in a worker thread: their own event loop, so that their work is not the
 * server's; `postMessage`s `ready`, each upload's first answer (`status`), `sent` once every upload
 * has written all but the closing boundary, and `closed` after a `close` from the main thread.
 */
const UPLOADER = `
const { parentPort, workerData } = require('node:worker_threads');
const net = require('node:net');
const { port, head, partHead, fileLength, count, staggerMs } = workerData;
const file = Buffer.alloc(fileLength);
file.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const sockets = [];
const writable = (socket) => new Promise((resolve) => {
  const done = () => { socket.off('drain', done); socket.off('close', done); resolve(); };
  socket.once('drain', done);
  socket.once('close', done);
});
async function upload(i, started) {
  await new Promise((resolve) => setTimeout(resolve, i * staggerMs));
  const socket = net.connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => {});
  socket.once('data', (chunk) => parentPort.postMessage({ type: 'status', i,
    status: /^HTTP\\/1\\.[01] (\\d{3})/.exec(chunk.toString('latin1', 0, 32))?.[1] ?? 'not HTTP',
    at: performance.now() - started }));
  socket.on('data', () => {});
  socket.write(head);
  socket.write(partHead);
  for (let at = 0; at < file.length && !socket.destroyed; at += 1 << 20)
    if (!socket.write(file.subarray(at, at + (1 << 20)))) await writable(socket);
  return !socket.destroyed;
}
parentPort.on('message', (message) => {
  if (message === 'go') {
    const started = performance.now();
    Promise.all(Array.from({ length: count }, (_, i) => upload(i, started))).then((sent) =>
      parentPort.postMessage({ type: 'sent', sent: sent.filter(Boolean).length, at: performance.now() - started }));
  } else if (message === 'close') {
    for (const socket of sockets) socket.destroy();
    parentPort.postMessage({ type: 'closed' });
  }
});
parentPort.postMessage({ type: 'ready' });
`;

type UploaderMessage =
  | { type: 'ready' | 'closed' }
  | { type: 'status'; i: number; status: string; at: number }
  | { type: 'sent'; sent: number; at: number };

async function heldUploads(s: Server) {
  const attacker = await newUser(s, 'Uploader');
  const org = await newOrganization(s, attacker.token, 'Uploads');
  const ops = await healthAndShowVictim(s);
  const without = await victim(ops, { rounds: 30, gapMs: 50, maxMs: 60_000 });

  const boundary = 'measure-hostile-boundary';
  const fileLength = 5 * MIB - 4_096;
  const partHead = `--${boundary}\r\ncontent-disposition: form-data; name="organization[logo]"; filename="logo.png"\r\ncontent-type: image/png\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  const length = partHead.length + fileLength + tail.length;
  const head =
    `PATCH /organizations/${org}.json HTTP/1.1\r\nhost: 127.0.0.1:${s.port}\r\nauthorization: Bearer ${attacker.token}\r\n` +
    `content-type: multipart/form-data; boundary=${boundary}\r\ncontent-length: ${length}\r\n\r\n`;
  const count = 150;
  const staggerMs = 20;
  const worker = new Worker(UPLOADER, {
    eval: true,
    workerData: { port: s.port, head, partHead, fileLength, count, staggerMs },
  });
  const statuses = new Map<number, { status: string; at: number }>();
  let sent: { sent: number; at: number } | undefined;
  const seen = new Set<string>();
  worker.on('message', (message: UploaderMessage) => {
    seen.add(message.type);
    if (message.type === 'status') statuses.set(message.i, message);
    if (message.type === 'sent') sent = message;
  });
  worker.on('error', (error) => console.log(`  uploader failed: ${error.message}`));
  const until = async (what: () => boolean, maxMs: number) => {
    for (const deadline = performance.now() + maxMs; !what() && performance.now() < deadline; )
      await sleep(50);
  };
  await until(() => seen.has('ready'), 30_000);

  await collectGarbage();
  const before = memory();
  const peaks = memoryPeaks();
  worker.postMessage('go');
  const attackVictim = victim(ops, { rounds: 30, gapMs: 50, maxMs: 30_000 });
  await until(() => sent !== undefined, 60_000);
  const whenSent = memory();
  const withAttack = await attackVictim;
  const held = peaks.stop();
  const answered = [...statuses.values()];
  worker.postMessage('close');
  await until(() => seen.has('closed'), 10_000);
  await worker.terminate();
  await sleep(1_000);
  await collectGarbage();
  const after = memory();
  const firstAnswer = Math.min(...answered.map((a) => a.at));
  const unanswered = count - answered.length;
  const outcome =
    `opened ${staggerMs} ms apart; ${sent ? `${sent.sent} of ${count} wrote all but the closing boundary in ${ms(sent.at)}` : 'still sending after 60 s'}; ` +
    `answered before the end: ${countOf(answered.map((a) => a.status))}${unanswered ? ` ${unanswered}×none` : ''}${answered.length ? ` (first at ${ms(firstAnswer)})` : ''}; ` +
    `rss +${mib(whenSent.rss - before.rss)} when sent, peak +${mib(held.rss - before.rss)}, after close+gc +${mib(after.rss - before.rss)}; ` +
    `heap+arrayBuffers +${mib(whenSent.heap - before.heap)} when sent, peak +${mib(held.heap - before.heap)}, after +${mib(after.heap - before.heap)}`;
  console.log(`  ${count} held uploads: ${outcome}`);
  compare('4 held uploads', ops, without, withAttack, outcome);
}

// ---------------------------------------------------------------------------------------------
// 5. The MCP server over HTTP: a client with no credential, and 300 idle sessions.

const MCP_BIN = join(import.meta.dirname, '../../mcp/src/bin.ts');
const MCP_SECRET = 'measure-hostile-mcp-secret-0123456789';
const PROTOCOL = '2025-06-18';

/** Starts `marketplace-mcp --http --port 0` as packages/mcp/test does; resolves to its URL. */
async function startMcp(token: string, baseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const { NODE_PATH: _hoisted, ...inherited } = process.env;
  const child = spawn(
    process.execPath,
    ['--conditions=@app/source', '--import', 'tsx', MCP_BIN, '--http', '--port', '0'],
    {
      cwd: join(import.meta.dirname, '../../mcp'),
      env: {
        ...inherited,
        MARKETPLACE_TOKEN: token,
        MARKETPLACE_BASE_URL: baseUrl,
        // The credential of the fixed server (decisions §6); the old one ignores it.
        MARKETPLACE_MCP_AUTH_TOKEN: MCP_SECRET,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`marketplace-mcp --http did not start: ${out}`)), 90_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1] as string });
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`marketplace-mcp exited ${code}: ${out}`));
    });
  });
}

/** Resident memory of a process (Linux). */
const rssOf = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

/** One JSON-RPC POST to the MCP endpoint; the answer may be JSON or an event stream. */
async function mcpPost(url: string, message: object, headers: Record<string, string>) {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(message),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    const data = text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim());
    let body: unknown;
    try {
      body = JSON.parse(data.at(-1) ?? text);
    } catch {}
    return { status: String(res.status), session: res.headers.get('mcp-session-id'), body };
  } catch (error) {
    return {
      status: (error as Error).name === 'TimeoutError' ? 'timeout' : 'closed',
      session: null,
      body: undefined,
    };
  }
}

/** initialize + notifications/initialized; the session id when one was opened. */
async function openSession(url: string, auth: Record<string, string>) {
  const init = await mcpPost(
    url,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: PROTOCOL,
        capabilities: {},
        clientInfo: { name: 'measure-hostile', version: '1.0.0' },
      },
    },
    auth,
  );
  if (init.session)
    await mcpPost(
      url,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      sessionHeaders(init.session, auth),
    );
  return init;
}
const sessionHeaders = (session: string, auth: Record<string, string>) => ({
  ...auth,
  'mcp-session-id': session,
  'mcp-protocol-version': PROTOCOL,
});
async function toolsList(url: string, session: string | null, auth: Record<string, string>) {
  const started = performance.now();
  const answer = await mcpPost(
    url,
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    session ? sessionHeaders(session, auth) : auth,
  );
  const tools = (answer.body as { result?: { tools?: unknown[] } } | undefined)?.result?.tools;
  return { ms: performance.now() - started, status: answer.status, tools: tools?.length ?? 0 };
}

/** `count` sessions, 10 at a time; statuses of their initialize. */
async function openSessions(url: string, count: number, auth: Record<string, string>) {
  const statuses: string[] = [];
  const deadline = performance.now() + 120_000;
  for (let i = 0; i < count && performance.now() < deadline; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, count - i) }, () => openSession(url, auth)),
    );
    statuses.push(...batch.map((b) => b.status));
  }
  return statuses;
}

async function mcpHttp(s: Server) {
  const user = await newUser(s, 'Agent');
  const { child, url } = await startMcp(user.token, s.url);
  const pid = child.pid as number;
  try {
    const credential = { authorization: `Bearer ${MCP_SECRET}` };
    const anonymous = await openSession(url, {});
    const anonymousList = await toolsList(url, anonymous.session, {});
    const anonymousLine = `initialize ${anonymous.status}, tools/list ${anonymousList.status} with ${anonymousList.tools} tools`;
    console.log(`  no credential: ${anonymousLine}`);
    const agent = await openSession(url, credential);
    const agentList = await toolsList(url, agent.session, credential);
    console.log(
      `  with the credential: initialize ${agent.status}, tools/list ${agentList.status} with ${agentList.tools} tools`,
    );

    const lists = async () => {
      const samples: Sample[] = [];
      for (let i = 0; i < 20; i++) samples.push(await toolsList(url, agent.session, credential));
      return samples;
    };
    const without = await lists();
    await sleep(500);
    const rss0 = rssOf(pid);
    const anonymousSessions = await openSessions(url, 300, {});
    await sleep(2_000);
    const rss1 = rssOf(pid);
    const agentSessions = await openSessions(url, 300, credential);
    await sleep(2_000);
    const rss2 = rssOf(pid);
    const withSessions = await lists();
    const sessionsLine =
      `300 sessions without a credential: ${countOf(anonymousSessions)}, rss +${mib(rss1 - rss0)}; ` +
      `300 with it: ${countOf(agentSessions)}, rss +${mib(rss2 - rss1)} (rss ${mib(rss0)} → ${mib(rss2)})`;
    console.log(`  ${sessionsLine}`);
    const ops: Op[] = [
      { name: 'tools/list (agent with the credential)', run: async () => ({ ms: 0, status: '' }) },
    ];
    compare(
      '5 MCP over HTTP',
      ops,
      [without],
      [withSessions],
      `no credential: ${anonymousLine}; ${sessionsLine}`,
    );
  } finally {
    child.kill('SIGTERM');
    await Promise.race([new Promise((resolve) => child.once('exit', resolve)), sleep(5_000)]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

// ---------------------------------------------------------------------------------------------
// 6. Role re-check: an admin's brief PATCH waits for the renderer; meanwhile the admin is removed.

async function roleRecheck(s: Server) {
  const owner = await newUser(s, 'Owner');
  const org = await newOrganization(s, owner.token, 'Org');
  const collab = await newCollab(s, owner.token, org);
  const admin = await newUser(s, 'Admin');
  const membership = await idOf('membership', () =>
    call(s, 'POST', `/test_helpers/organizations/${org}/members.json`, {
      token: HELPERS_KEY,
      json: { membership: { user_id: admin.id, role: 'admin' } },
    }),
  );
  // Render work ahead of it: one worst-case brief from each of 6 other users.
  const others = await Promise.all(
    Array.from({ length: 6 }, async (_, i) => {
      const u = await newUser(s, `Busy ${i}`);
      const o = await newOrganization(s, u.token, `Busy ${i}`);
      return { ...u, org: o, collab: await newCollab(s, u.token, o) };
    }),
  );
  const started = performance.now();
  const work = Promise.all(
    others.map((o, i) =>
      call(s, 'PATCH', `/organizations/${o.org}/collabs/${o.collab}.json`, {
        token: o.token,
        json: { collab: { brief: bomb(`r6${Date.now()}-${i}`) } },
        timeoutMs: 60_000,
      }),
    ),
  );
  await sleep(200);
  const brief = `Written by a removed admin ${Date.now()}`;
  const write = call(s, 'PATCH', `/organizations/${org}/collabs/${collab}.json`, {
    token: admin.token,
    json: { collab: { brief } },
    timeoutMs: 60_000,
  }).then((a) => ({ ...a, at: performance.now() - started }));
  await sleep(500);
  const removal = await call(s, 'DELETE', `/organizations/${org}/members/${membership}.json`, {
    token: owner.token,
  });
  const removedAt = performance.now() - started;
  const show = await call(s, 'GET', `/organizations/${org}.json`, { token: admin.token });
  const answer = await write;
  const workAnswers = await work;
  const rows = await s.orm.em
    .fork()
    .execute<{ brief: string }[]>('select brief from collabs where id = ?', [collab]);
  const landed = rows[0]?.brief === brief;
  const outcome =
    `removal ${removal.status} at ${ms(removedAt)} (the admin's show then ${show.status}); the admin's PATCH ${answer.status} at ${ms(answer.at)} ` +
    `(${answer.at > removedAt ? 'after' : 'BEFORE'} the removal); write landed: ${landed ? 'YES' : 'no'}; render work ${countOf(workAnswers.map((w) => w.status))}`;
  console.log(`  ${outcome}`);
  row('6 role re-check', "removed admin's brief PATCH", '', '', answer.status, outcome);
  await drainRenderer(s, owner.token, org, collab);
}

// ---------------------------------------------------------------------------------------------

const runs: Record<Scenario, [string, (s: Server) => Promise<void>]> = {
  '0': ['round one (first review)', roundOne],
  '1': ['64 slow readers', slowReaders],
  '2': [
    '64 render-bomb PATCHes from one user',
    async (s) => {
      bombRun = await renderBombs(s);
    },
  ],
  '3': [
    'requests with a body queued behind render work',
    async (s) => {
      bombRun ??= await renderBombs(s);
      queuedBodies(bombRun);
    },
  ],
  '4': ['150 held 5 MiB uploads', heldUploads],
  '5': ['MCP over HTTP', mcpHttp],
  '6': ['role re-check after render work', roleRecheck],
};

console.log(
  `measure:hostile ${new Date().toISOString()} node ${process.version}; scenarios ${[...selected].join(',')}; gc ${globalThis.gc ? 'on' : 'off (run with --expose-gc)'}`,
);
for (const id of SCENARIOS) {
  if (!selected.has(id)) continue;
  const [title, run] = runs[id];
  // 3 after 2 reads the figures of 2's run (the same requests).
  const reuse = id === '3' && bombRun !== undefined;
  console.log(`\n${id}. ${title}${reuse ? ' (from the run of 2)' : ''}`);
  const started = performance.now();
  let server: Server | undefined;
  try {
    if (!reuse) server = await startServer();
    await run(server as Server);
  } catch (error) {
    console.log(`  failed: ${(error as Error).stack ?? error}`);
    row(id, title, '', '', '', `failed: ${(error as Error).message}`);
  } finally {
    if (server) await stopServer(server);
  }
  console.log(`  (${ms(performance.now() - started)})`);
}

console.log(
  '\n| # | victim | p50 without → with | p99 without → with | victim statuses with | attack / outcome |',
);
console.log('|---|---|---|---|---|---|');
for (const cells of summary) console.log(`| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`);
process.exit(0);
