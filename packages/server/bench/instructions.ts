/**
 * `pnpm bench:instructions`: the show and the one-statement anchor's show (targets/anchor.ts)
 * counted in instructions, not in seconds. Each runs under valgrind's callgrind, is warmed up,
 * then answers `BENCH_REQUESTS` shows, one connection at a time; the counts of those requests are
 * what it prints, per request, split into the main thread (the event loop: what a request waits
 * for) and the rest (V8's compiler and collector threads), with the simulated level-1 instruction
 * cache's misses and the branches mispredicted. The same build gives the same figures on a busy
 * machine and on a quiet one, which `pnpm bench`'s req/s do not (docs/performance.md): it tells
 * whether a change made the request path do less, and where a ratio of seconds comes from.
 *
 * Under callgrind a request takes some 40 times as long, so the work a process's timers do
 * whatever the load (the server's overload sampling every 10 ms and its database check every
 * second) falls on 40 times fewer requests than at full speed. Each target is therefore also
 * counted idle for `BENCH_IDLE_MS` (30 s) after its requests, and a second table gives the main
 * thread's counts less that work scaled to the requests' duration.
 *
 * PostgreSQL only (`BENCH_DATABASE_URL`; a fresh database is made and dropped). Needs valgrind
 * (Debian's package) and the built server (`pnpm --filter @app/server exec tsup`). Both targets run
 * at once, one per core, about 10 minutes with the defaults.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import {
  type Counts,
  callgrindControl,
  compareRows,
  countsOf,
  requireValgrind,
  underCallgrind,
} from '../../../scripts/callgrind.js';
import { checkAnchorShows, freshDatabase, HELPERS_KEY, seed, start, type Target } from './launch.js';

const here = dirname(fileURLToPath(import.meta.url));
// V8 keeps compiling for the first 40 000 or so requests at full speed; under callgrind, the counts
// of compilation settle later. The warm-up is what that costs.
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 10_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3_000);
/** Milliseconds each target is counted idle after its requests (`BENCH_IDLE_MS`). */
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 30_000);
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const serverCli = process.env.BENCH_SERVER ?? join(here, '..', 'dist', 'cli.js');

/**
 * The main thread's `counts` less its `idle` ones scaled from `idleMs` to `ms`: what the requests
 * cost beyond its timers' work. The other threads' are left as counted: what V8 compiles while
 * the process is idle is work the requests left it, not a timer's.
 */
function lessIdle(counts: Counts, ms: number, idle: Counts, idleMs: number): Counts {
  const scaled = (busy: number, quiet: number) => busy - (quiet * ms) / idleMs;
  return {
    main: {
      instructions: scaled(counts.main.instructions, idle.main.instructions),
      i1Misses: scaled(counts.main.i1Misses, idle.main.i1Misses),
      mispredicted: scaled(counts.main.mispredicted, idle.main.mispredicted),
    },
    others: counts.others,
  };
}

/**
 * `amount` requests, one at a time. Under callgrind a long compilation can hold the event loop
 * for a second, which the server's overload protection answers with `503`s: allowed while warming
 * up, not among the requests counted.
 */
async function drive(url: string, headers: Record<string, string>, amount: number, warmingUp: boolean) {
  const result = await autocannon({ url, connections: 1, amount, headers });
  if (result.errors > 0 || (result.non2xx > 0 && !warmingUp))
    throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx`);
}

/** Starts `args` under callgrind, warms it up on `path`, and counts {@link REQUESTS} more. */
async function count(
  name: string,
  args: string[],
  env: Record<string, string>,
  probe: string,
  path: string,
  auth: Record<string, string>,
  /** Run on the started target before anything is counted. */
  check?: (url: string) => Promise<void>,
) {
  const dir = mkdtempSync(join(tmpdir(), `bench-callgrind-${name}-`));
  const target = await start(args, env, probe, {
    under: underCallgrind(dir),
    startupMs: 600_000,
  });
  try {
    await check?.(target.url);
    await drive(target.url + path, auth, WARM_UP, true);
    const control = (command: '--zero' | '--dump') => callgrindControl(target.pid, command);
    control('--zero');
    const started = performance.now();
    await drive(target.url + path, auth, REQUESTS, false);
    control('--dump');
    const ms = performance.now() - started;
    const counts = countsOf(dir);
    // The same process idle: the work its timers do whatever the requests (the overload sampling,
    // the database check), which callgrind's slowdown spreads over far fewer requests than in a
    // run at full speed.
    control('--zero');
    await sleep(IDLE_MS);
    control('--dump');
    return { counts, lessIdle: lessIdle(counts, ms, countsOf(dir), IDLE_MS), ms };
  } finally {
    await target.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

requireValgrind();
const database = await freshDatabase(databaseUrl, 'bench_instructions');
const targets: Target[] = [];
try {
  // One base URL for both, so that they write the same bytes (checked before counting).
  const baseUrl = 'http://127.0.0.1:3000';
  const env = {
    DATABASE_URL: database.url,
    MARKETPLACE_TEST_HELPERS_KEY: HELPERS_KEY,
    LOG_LEVEL: 'warn',
    MARKETPLACE_BASE_URL: baseUrl,
  };
  // Seeds the database, then (idle) gives the bytes the anchor's show must answer.
  const seeder = await start([serverCli, 'serve'], env, '/health');
  targets.push(seeder);
  const data = await seed(seeder.url);
  const auth = { authorization: `Bearer ${data.token}` };
  const [anchor, show] = await Promise.all([
    count(
      'anchor',
      ['--import', 'tsx', join(here, 'targets', 'anchor.ts')],
      { DATABASE_URL: database.url, MARKETPLACE_BASE_URL: baseUrl },
      '/',
      `/one-statement${data.showPath}`,
      auth,
      (anchorUrl) => checkAnchorShows(seeder.url, anchorUrl, data.showPath, auth),
    ),
    count('server', [serverCli, 'serve'], env, '/health', data.showPath, auth),
  ]);
  const k = (n: number) => (n / REQUESTS / 1000).toFixed(1);
  const ratio = (a: number, b: number) => (a / b).toFixed(3);
  const seconds = (ms: number) => (ms / 1000).toFixed(0);
  const table = (title: string, a: Counts, s: Counts) => {
    console.log(`\n## ${title}\n`);
    console.log(
      '| per request | one-statement anchor | GET /organizations/:id.json | ratio |\n|---|---|---|---|',
    );
    for (const [what, x, y] of compareRows(a, s))
      console.log(`| ${what} | ${k(x)} | ${k(y)} | ${ratio(y, x)} |`);
  };
  table(
    `Instructions per show (callgrind; ${REQUESTS} requests after ${WARM_UP}, one connection; ` +
      `${seconds(anchor.ms)} s and ${seconds(show.ms)} s)`,
    anchor.counts,
    show.counts,
  );
  table(
    `The same, the main thread less its work when idle for as long (counted for ${seconds(IDLE_MS)} s): ` +
      'its timers, which callgrind spreads over fewer requests than a run at full speed',
    anchor.lessIdle,
    show.lessIdle,
  );
} finally {
  for (const target of targets) await target.stop();
  await database.drop();
}
