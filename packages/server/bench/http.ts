/**
 * `pnpm bench`, the server half: starts side by side on loopback, each in its own process,
 *   1. bare Fastify serving the show's body from memory (targets/bare.ts),
 *   2. the hand-written Fastify + node-postgres anchor (targets/anchor.ts), on the same database:
 *      the show in two statements and in one (the caller and the organization together, the
 *      anchor of the show's targets), and a page of collabs twice (rows decoded in Node, and JSON
 *      built by PostgreSQL); both shows must answer the server's bytes,
 *   3. the server itself (the built `dist/cli.js serve`, `LOG_LEVEL=warn`), with pages of an
 *      organization of 45 collabs and of one of 10 000 (PostgreSQL only: seeded in SQL), and
 *      (PostgreSQL) the same build keeping no page (`MARKETPLACE_PAGE_CACHE_BYTES=0`): the pages
 *      as they cost when their list has changed since they were last read,
 * then drives each with autocannon (10 connections) in alternating rounds, every other one in the
 * reverse order, so drift and the order hit all alike, and prints req/s, p50/p99, the CPU per request of
 * the target and (PostgreSQL) of the database's processes, and the ratios of docs/performance.md. It runs on PostgreSQL
 * (`BENCH_DATABASE_URL`, default the local one; a fresh database is created and dropped) and on
 * embedded PGlite. `--short`: one round of one second, for CI (no thresholds there).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import {
  checkAnchorShows,
  databaseCpuMsSince,
  fetchOk,
  freshDatabase,
  HELPERS_KEY,
  json,
  readDatabaseCpu,
  SMALL_LIST,
  seed,
  start,
  type Target,
} from './launch.js';

const here = dirname(fileURLToPath(import.meta.url));
const short = process.argv.includes('--short');
// An even number: as many rounds in each order (see `measure`).
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (short ? 1 : 4));
const SECONDS = Number(process.env.BENCH_SECONDS ?? (short ? 1 : 5));
const CONNECTIONS = 10;
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const only = process.env.BENCH_ONLY; // 'postgres' | 'pglite'
// `BENCH_CASES`: only the cases whose name contains one of these comma-separated words (for a profile).
const caseFilter = process.env.BENCH_CASES?.split(',');

const tsx = ['--import', 'tsx'];
// `BENCH_SERVER`: another build's `dist/cli.js`, to compare two versions with the same instrument.
const serverCli = process.env.BENCH_SERVER ?? join(here, '..', 'dist', 'cli.js');
// `BENCH_SERVER_BEFORE`: another build's `dist/cli.js`, served beside this one on the same database
// (PostgreSQL), its show and page measured in the same rounds: a before/after in one run.
const serverBeforeCli = process.env.BENCH_SERVER_BEFORE;
// `BENCH_SERVER_NODE_FLAGS`: flags for the server's `node` only, to measure a V8 setting like a build.
const serverNode = (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean);

/** The cases measured on a server that keeps no page (`MARKETPLACE_PAGE_CACHE_BYTES=0`). */
const NOT_KEPT = ', no page kept';

/** Collabs of the large organization (the default limit). */
const LARGE_LIST = 10_000;

/**
 * An organization with {@link LARGE_LIST} collabs: one made through the API, the others copied
 * from it in SQL (one second apart, newest first as made), then `vacuum analyze` (what autovacuum
 * does after such an insert), so that the pages are read as on a server that has been running.
 * Returns the paths of its first and last pages.
 */
async function seedLarge(serverUrl: string, databaseUrl: string, headers: Record<string, string>) {
  const org = await json(
    await fetch(`${serverUrl}/organizations.json`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ organization: { name: 'Bench, large' } }),
    }),
  );
  const collab = await json(
    await fetch(`${serverUrl}/organizations/${org.id}/collabs.json`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ collab: { name: 'Collab', brief: '# Collab\n\nA **brief**.' } }),
    }),
  );
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ column_name: string }>(
      `select column_name from information_schema.columns
       where table_name = 'collabs' and column_name not in ('id', 'name', 'created_at', 'updated_at')`,
    );
    const columns = rows.map((row) => `"${row.column_name}"`).join(', ');
    await db.query(
      `insert into collabs (id, name, created_at, updated_at, ${columns})
       select substr(md5(random()::text || g::text), 1, 16), 'Collab ' || g,
              created_at - g * interval '1 second', created_at - g * interval '1 second', ${columns}
       from collabs, generate_series(1, $2::int) g where id = $1`,
      [collab.id, LARGE_LIST - 1],
    );
    await db.query('vacuum analyze collabs');
  } finally {
    await db.end();
  }
  const path = `/organizations/${org.id}/collabs.json`;
  const pages = Math.ceil(LARGE_LIST / 20);
  return {
    firstPath: path,
    middlePath: `${path}?page=${pages / 2}`,
    lastPath: `${path}?page=${pages}`,
  };
}

/**
 * The anchor's pages answer what the server's does, or their figures would not compare: the page
 * by hand byte for byte, the one PostgreSQL writes once parsed; the same pagination headers.
 */
async function checkAnchorLists(
  serverUrl: string,
  anchorUrl: string,
  listPath: string,
  builtListPath: string,
  headers: Record<string, string>,
) {
  const read = async (url: string) => {
    const res = await fetchOk(url, headers);
    const paging = ['current-page', 'page-items', 'total-count', 'total-pages'].map((h) =>
      res.headers.get(h),
    );
    return { body: await res.text(), paging: paging.join(' ') };
  };
  const ours = await read(serverUrl + listPath);
  const byHand = await read(anchorUrl + listPath);
  const built = await read(anchorUrl + builtListPath);
  if (byHand.body !== ours.body || byHand.paging !== ours.paging)
    throw new Error(`the anchor's page differs from the server's:\n${byHand.body}\n${ours.body}`);
  if (!isDeepStrictEqual(JSON.parse(built.body), JSON.parse(ours.body)) || built.paging !== ours.paging)
    throw new Error(`the page PostgreSQL built differs from the server's:\n${built.body}\n${ours.body}`);
}

interface Figures {
  rps: number;
  /** The median and the 99th percentile of every answer's time in the case's rounds, pooled (ms). */
  p50: number;
  p99: number;
  /** The highest of the rounds' own 99th percentiles (ms): the figure of the runs before 2026-11-27. */
  worstRoundP99: number;
  /** CPU time of the target's process per request, in µs (steadier than req/s on a busy machine). */
  cpuUs: number;
  /** CPU time of PostgreSQL's processes per request, in µs (they share the 2 cores with the target). */
  databaseCpuUs: number;
}

async function drive(
  target: Target,
  path: string,
  headers: Record<string, string>,
  expectStatus: number,
): Promise<Round> {
  const url = target.url + path;
  const cpuBefore = target.cpuMs();
  const databaseBefore = readDatabaseCpu();
  // Each answer's time as the client measured it, to the microsecond: autocannon's own
  // percentiles are whole milliseconds (its histogram's lowest discernible value is 1), which on a
  // fast machine made the show's p99 4 ms against the anchor's 2.
  const times: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const options = { url, connections: CONNECTIONS, duration: SECONDS, headers };
    const instance = autocannon(options, (error, done) => (error ? reject(error) : resolve(done)));
    instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  });
  const cpuUs = ((target.cpuMs() - cpuBefore) * 1000) / result.requests.total;
  const databaseCpuUs = (databaseCpuMsSince(databaseBefore) * 1000) / result.requests.total;
  const bad = result.non2xx - (expectStatus === 304 ? result['3xx'] : 0);
  if (result.errors > 0 || bad > 0 || result.requests.total === 0)
    throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx`);
  return { rps: result.requests.average, times: Float64Array.from(times), cpuUs, databaseCpuUs };
}

/** One round of one case: its req/s, CPU per request and every answer's time (ms). */
interface Round {
  rps: number;
  times: Float64Array;
  cpuUs: number;
  databaseCpuUs: number;
}

/** The value below which the fraction `p` of the `sorted` values lie (nearest rank). */
function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0;
}

/**
 * Runs each case once per round, in turn, and keeps each case's mean req/s and CPU over the rounds,
 * and the percentiles of all its answers' times pooled (the p99 of the run, not the worst of the
 * rounds' p99s, which the runs before 2026-11-27 reported and which is still printed). Every other
 * round runs the cases in the reverse order, so that no case always follows the same one: on this
 * machine the case measured after a given other one came out up to 10 % slower or faster whichever
 * build it was (docs/performance-log.md), and the show always followed the anchor.
 */
async function measure(cases: Array<{ name: string; run: () => Promise<Round> }>) {
  const all = new Map<string, Round[]>();
  for (let round = 0; round < ROUNDS; round++)
    for (const c of round % 2 === 0 ? cases : [...cases].reverse()) {
      if (caseFilter && !caseFilter.some((word) => c.name.includes(word))) continue;
      const figures = await c.run();
      all.set(c.name, [...(all.get(c.name) ?? []), figures]);
    }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const sorted = (rounds: Round[]) => {
    const times = new Float64Array(rounds.reduce((n, r) => n + r.times.length, 0));
    let at = 0;
    for (const r of rounds) {
      times.set(r.times, at);
      at += r.times.length;
    }
    return times.sort();
  };
  return new Map(
    [...all].map(([name, rounds]): [string, Figures] => {
      const times = sorted(rounds);
      return [
        name,
        {
          rps: mean(rounds.map((r) => r.rps)),
          p50: percentile(times, 0.5),
          p99: percentile(times, 0.99),
          worstRoundP99: Math.max(...rounds.map((r) => percentile(r.times.sort(), 0.99))),
          cpuUs: mean(rounds.map((r) => r.cpuUs)),
          databaseCpuUs: mean(rounds.map((r) => r.databaseCpuUs)),
        },
      ];
    }),
  );
}

/** Prints a section's table and ratios; `database`: PostgreSQL's own CPU per request too. */
function print(
  title: string,
  results: Map<string, Figures>,
  ratios: Array<[string, number, string]>,
  { database = false } = {},
) {
  console.log(`\n## ${title} (${ROUNDS} × ${SECONDS} s, ${CONNECTIONS} connections)\n`);
  const heads = ['route', 'req/s', 'p50 ms', 'p99 ms', 'worst round p99 ms', 'CPU µs/request'];
  if (database) heads.push('PostgreSQL CPU µs/request');
  console.log(`| ${heads.join(' | ')} |\n|${'---|'.repeat(heads.length)}`);
  for (const [name, f] of results) {
    const cells = [name, Math.round(f.rps), f.p50.toFixed(2), f.p99.toFixed(2), f.worstRoundP99.toFixed(2)];
    cells.push(Math.round(f.cpuUs));
    if (database) cells.push(Math.round(f.databaseCpuUs));
    console.log(`| ${cells.join(' | ')} |`);
  }
  console.log('\n| ratio | value | target |\n|---|---|---|');
  for (const [name, value, target] of ratios) console.log(`| ${name} | ${value.toFixed(3)} | ${target} |`);
}

async function onPostgres() {
  const database = await freshDatabase(databaseUrl, 'bench');
  const targets: Target[] = [];
  try {
    const server = await start(
      [...serverNode, serverCli, 'serve'],
      { DATABASE_URL: database.url, MARKETPLACE_TEST_HELPERS_KEY: HELPERS_KEY, LOG_LEVEL: 'warn' },
      '/health',
    );
    targets.push(server);
    const data = await seed(server.url);
    const large = await seedLarge(server.url, database.url, data.headers);
    const bare = await start([...tsx, join(here, 'targets', 'bare.ts')], { BENCH_BODY: data.body }, '/');
    targets.push(bare);
    const anchor = await start(
      [...tsx, join(here, 'targets', 'anchor.ts')],
      { DATABASE_URL: database.url, MARKETPLACE_BASE_URL: server.url },
      '/',
    );
    targets.push(anchor);
    const before =
      serverBeforeCli &&
      (await start(
        [...serverNode, serverBeforeCli, 'serve'],
        { DATABASE_URL: database.url, MARKETPLACE_TEST_HELPERS_KEY: HELPERS_KEY, LOG_LEVEL: 'warn' },
        '/health',
      ));
    if (before) targets.push(before);
    // The same build keeping no page (pipeline/page-cache.ts): what a page costs when its list has
    // changed since it was last read, or on a replica that has not read it yet.
    const unkept = await start(
      [...serverNode, serverCli, 'serve'],
      {
        DATABASE_URL: database.url,
        MARKETPLACE_TEST_HELPERS_KEY: HELPERS_KEY,
        LOG_LEVEL: 'warn',
        MARKETPLACE_PAGE_CACHE_BYTES: '0',
      },
      '/health',
    );
    targets.push(unkept);
    const auth = { authorization: `Bearer ${data.token}` };
    const builtListPath = data.listPath.replace('/collabs.json', '/collabs-built-by-postgres.json');
    await checkAnchorLists(server.url, anchor.url, data.listPath, builtListPath, auth);
    await checkAnchorShows(server.url, anchor.url, data.showPath, auth);
    const results = await measure([
      { name: 'bare Fastify, same body', run: () => drive(bare, data.showPath, {}, 200) },
      { name: 'anchor: Fastify + pg by hand', run: () => drive(anchor, data.showPath, auth, 200) },
      {
        name: 'anchor: one statement by hand',
        run: () => drive(anchor, `/one-statement${data.showPath}`, auth, 200),
      },
      { name: 'GET /organizations/:id.json', run: () => drive(server, data.showPath, auth, 200) },
      { name: 'GET …/collabs.json?page=2', run: () => drive(server, data.listPath, auth, 200) },
      { name: `GET …/collabs.json?page=2${NOT_KEPT}`, run: () => drive(unkept, data.listPath, auth, 200) },
      ...(before
        ? [
            {
              name: 'before: GET /organizations/:id.json',
              run: () => drive(before, data.showPath, auth, 200),
            },
            { name: 'before: GET …/collabs.json?page=2', run: () => drive(before, data.listPath, auth, 200) },
          ]
        : []),
      { name: 'anchor: the page by hand', run: () => drive(anchor, data.listPath, auth, 200) },
      {
        name: 'anchor: the page, JSON built by PostgreSQL',
        run: () => drive(anchor, builtListPath, auth, 200),
      },
      {
        name: `…/collabs.json, ${SMALL_LIST} collabs, page 1`,
        run: () => drive(server, data.smallListPath, auth, 200),
      },
      {
        name: `…/collabs.json, ${LARGE_LIST} collabs, page 1`,
        run: () => drive(server, large.firstPath, auth, 200),
      },
      {
        name: `…/collabs.json, ${LARGE_LIST} collabs, middle page`,
        run: () => drive(server, large.middlePath, auth, 200),
      },
      {
        name: `…/collabs.json, ${LARGE_LIST} collabs, last page`,
        run: () => drive(server, large.lastPath, auth, 200),
      },
      ...(
        [
          [`${SMALL_LIST} collabs, page 1`, data.smallListPath],
          [`${LARGE_LIST} collabs, page 1`, large.firstPath],
          [`${LARGE_LIST} collabs, middle page`, large.middlePath],
          [`${LARGE_LIST} collabs, last page`, large.lastPath],
        ] as const
      ).map(([what, path]) => ({
        name: `…/collabs.json, ${what}${NOT_KEPT}`,
        run: () => drive(unkept, path, auth, 200),
      })),
      {
        name: 'the same show answered 304',
        run: () => drive(server, data.showPath, { ...auth, 'if-none-match': data.etag }, 304),
      },
    ]);
    const rps = (n: string) => results.get(n)?.rps ?? 0;
    const bareRps = rps('bare Fastify, same body');
    const anchorRps = rps('anchor: Fastify + pg by hand');
    const oneRps = rps('anchor: one statement by hand');
    const showRps = rps('GET /organizations/:id.json');
    const p99 = (n: string) => results.get(n)?.p99 ?? 0;
    const worstP99 = (n: string) => results.get(n)?.worstRoundP99 ?? 0;
    // What a request costs the machine's cores: the target's CPU and PostgreSQL's.
    const cpu = (n: string) => {
      const f = results.get(n);
      return f ? f.cpuUs + f.databaseCpuUs : 0;
    };
    print(
      'PostgreSQL',
      results,
      [
        ['anchor / bare', anchorRps / bareRps, ''],
        ['show / bare', showRps / bareRps, ''],
        ['show / one-statement anchor', showRps / oneRps, '≥ 1.0'],
        [
          "the same, CPU per request (the target's and PostgreSQL's), anchor / show",
          cpu('anchor: one statement by hand') / cpu('GET /organizations/:id.json'),
          '',
        ],
        ...(before
          ? ([
              [
                'before: show / one-statement anchor',
                rps('before: GET /organizations/:id.json') / oneRps,
                '',
              ],
              [
                'before: list page / one-statement anchor show',
                rps('before: GET …/collabs.json?page=2') / oneRps,
                '',
              ],
            ] as Array<[string, number, string]>)
          : []),
        [
          'show p99 / one-statement anchor p99',
          p99('GET /organizations/:id.json') / p99('anchor: one statement by hand'),
          '≤ 1.2',
        ],
        [
          "the same, each one's worst round",
          worstP99('GET /organizations/:id.json') / worstP99('anchor: one statement by hand'),
          '',
        ],
        ['list page / one-statement anchor show', rps('GET …/collabs.json?page=2') / oneRps, '≥ 0.6'],
        [
          `list page${NOT_KEPT} / one-statement anchor show`,
          rps(`GET …/collabs.json?page=2${NOT_KEPT}`) / oneRps,
          '',
        ],
        ['show / two-statement anchor', showRps / anchorRps, ''],
        ['list page / two-statement anchor show', rps('GET …/collabs.json?page=2') / anchorRps, ''],
        ['anchor page by hand / anchor show', rps('anchor: the page by hand') / anchorRps, ''],
        [
          'anchor page, JSON by PostgreSQL / anchor show',
          rps('anchor: the page, JSON built by PostgreSQL') / anchorRps,
          '',
        ],
        [
          'list page / anchor page by hand',
          rps('GET …/collabs.json?page=2') / rps('anchor: the page by hand'),
          '',
        ],
        [
          `list page${NOT_KEPT} / anchor page by hand`,
          rps(`GET …/collabs.json?page=2${NOT_KEPT}`) / rps('anchor: the page by hand'),
          '',
        ],
        [
          '304 / our 200 show',
          rps('the same show answered 304') / showRps,
          '(none: decisions §6, a 304 reads like a 200)',
        ],
        ...['', NOT_KEPT].flatMap((kept): Array<[string, number, string]> => {
          const small = rps(`…/collabs.json, ${SMALL_LIST} collabs, page 1${kept}`);
          return [
            [
              `${LARGE_LIST} collabs page 1 / ${SMALL_LIST} collabs page 1${kept}`,
              rps(`…/collabs.json, ${LARGE_LIST} collabs, page 1${kept}`) / small,
              '≥ 0.7',
            ],
            [
              `${LARGE_LIST} collabs middle page / ${SMALL_LIST} collabs page 1${kept}`,
              rps(`…/collabs.json, ${LARGE_LIST} collabs, middle page${kept}`) / small,
              '',
            ],
            [
              `${LARGE_LIST} collabs last page / ${SMALL_LIST} collabs page 1${kept}`,
              rps(`…/collabs.json, ${LARGE_LIST} collabs, last page${kept}`) / small,
              '≥ 0.5',
            ],
          ];
        }),
      ],
      { database: true },
    );
  } finally {
    for (const t of targets) await t.stop();
    await database.drop();
  }
}

async function onPglite() {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-pglite-'));
  const targets: Target[] = [];
  try {
    const server = await start(
      [...serverNode, serverCli, 'serve'],
      { MARKETPLACE_DATA_DIR: dataDir, MARKETPLACE_TEST_HELPERS_KEY: HELPERS_KEY, LOG_LEVEL: 'warn' },
      '/health',
    );
    targets.push(server);
    const data = await seed(server.url);
    const bare = await start([...tsx, join(here, 'targets', 'bare.ts')], { BENCH_BODY: data.body }, '/');
    targets.push(bare);
    const auth = { authorization: `Bearer ${data.token}` };
    const results = await measure([
      { name: 'bare Fastify, same body', run: () => drive(bare, data.showPath, {}, 200) },
      { name: 'GET /organizations/:id.json', run: () => drive(server, data.showPath, auth, 200) },
      { name: 'GET …/collabs.json?page=2', run: () => drive(server, data.listPath, auth, 200) },
    ]);
    const rps = (n: string) => results.get(n)?.rps ?? 0;
    const bareRps = rps('bare Fastify, same body');
    print('PGlite (embedded, on disk)', results, [
      ['show / bare', rps('GET /organizations/:id.json') / bareRps, '≥ 3 × 0.014 (issue baseline)'],
      ['list page / bare', rps('GET …/collabs.json?page=2') / bareRps, ''],
    ]);
  } finally {
    for (const t of targets) await t.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (only !== 'pglite') await onPostgres();
if (only !== 'postgres') await onPglite();
