/**
 * `pnpm bench`, the SDK half: what the SDK costs over hand-written code, in alternating rounds. The
 * targets (issue #27, decisions §6: the SDK stays on ky) are against ky alone configured as the SDK
 * configures it (its retry policy and timeout), not against raw `fetch`:
 *   - `retrieve` vs ky alone + `JSON.parse`, and iterating a list vs a hand-written page loop over
 *     ky alone configured the same, each measured twice:
 *       - against a stub server answering from memory (stub-server.ts, in its own process), where
 *         what differs is the client's own work (no ETag on that resource, so every call is a 200);
 *       - against the reference server, the measure: its built `dist/cli.js` on a fresh
 *         PostgreSQL database, 45 collabs made through the API (packages/server/bench/seeded.ts,
 *         in its own process; `BENCH_DATABASE_URL`, default the local one; the server's bench must
 *         have built it, as `pnpm bench` does);
 *   - for reference, ky alone vs raw `fetch` + `JSON.parse`, with the SDK's options and with none
 *     (what no ky option takes away), `retrieve` vs raw `fetch`, and (over the stub) iterating vs
 *     the hand loop checking each page as the SDK must;
 *   - a cached `304` (the SDK's ETag cache) vs a raw conditional `fetch` keeping its own copy;
 *   - `concurrency: 4` vs sequential with 20 ms of latency per page;
 *   - heap growth while iterating 10 000 items.
 * `--short`: fewer calls, for CI (no thresholds there).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OrganizationId } from '@app/schemas';
import { Marketplace } from '@app/sdk';
import ky from 'ky';
import {
  checkedPage,
  handLoop,
  iterate,
  kyAlone,
  ORG,
  PLAIN_ORG,
  spawnScript,
  stopChildren,
  stub,
  stubHeaders,
  stubListUrl,
  stubPlainUrl,
  token,
} from './cases.js';

const here = dirname(fileURLToPath(import.meta.url));
const short = process.argv.includes('--short');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (short ? 1 : 5));
const CALLS = short ? 200 : 2_000;

/**
 * The reference server (its built `dist/cli.js`) on a fresh PostgreSQL database, seeded through
 * the API by the server's bench (packages/server/bench/seeded.ts): what issue #27 measures the SDK
 * against.
 */
async function referenceServer() {
  const line = await spawnScript(join(here, '..', '..', 'server', 'bench', 'seeded.ts'), {}, /seeded (.+)\n/);
  return JSON.parse(line) as { url: string; token: string; organizationId: string; collabs: number };
}

/** Milliseconds (wall) and this process's CPU µs per call of `run`, over `calls` calls. */
async function timed(calls: number, run: () => Promise<unknown>): Promise<{ ms: number; cpuUs: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < calls; i++) await run();
  const used = process.cpuUsage(cpu);
  return { ms: (performance.now() - start) / calls, cpuUs: (used.user + used.system) / calls };
}

/**
 * Runs the two sides in alternating rounds; keeps each side's best round (least disturbed), for
 * the wall time and, apart, for the client's CPU (the stub server is another process).
 */
async function compare(calls: number, a: () => Promise<unknown>, b: () => Promise<unknown>) {
  await timed(Math.ceil(calls / 4), a); // warm-up
  await timed(Math.ceil(calls / 4), b);
  const best = { a: Number.POSITIVE_INFINITY, b: Number.POSITIVE_INFINITY };
  const cpu = { a: Number.POSITIVE_INFINITY, b: Number.POSITIVE_INFINITY };
  for (let round = 0; round < ROUNDS; round++) {
    const ta = await timed(calls, a);
    const tb = await timed(calls, b);
    best.a = Math.min(best.a, ta.ms);
    best.b = Math.min(best.b, tb.ms);
    cpu.a = Math.min(cpu.a, ta.cpuUs);
    cpu.b = Math.min(cpu.b, tb.cpuUs);
  }
  return { a: best.a, b: best.b, ratio: best.b / best.a, cpu };
}

const rows: Array<[string, string, string, string, string]> = [];
const row = (
  name: string,
  { a: raw, b: sdk, cpu }: { a: number; b: number; cpu: { a: number; b: number } },
  unit: string,
  target: string,
) =>
  rows.push([
    name,
    `${raw.toFixed(unit === 'ms/list' ? 1 : 3)} / ${sdk.toFixed(unit === 'ms/list' ? 1 : 3)} ${unit}`,
    (sdk / raw).toFixed(3),
    `${cpu.a.toFixed(0)} / ${cpu.b.toFixed(0)} µs (${(cpu.b / cpu.a).toFixed(2)})`,
    target,
  ]);

try {
  const base = await stub({ BENCH_ITEMS: short ? '400' : '2000' });
  const headers = stubHeaders;
  const client = new Marketplace({ baseUrl: base, token, cache: false });
  const cached = new Marketplace({ baseUrl: base, token });

  // The baseline of a ky-based client: ky alone, with the SDK's retry policy and timeout, no SDK code.
  const plain = stubPlainUrl(base);
  const kyGet = kyAlone(headers);
  const r1 = await compare(
    CALLS,
    async () => JSON.parse(await kyGet(plain).text()),
    () => client.organizations.retrieve(PLAIN_ORG),
  );
  row(
    "stub server (the client's own cost): retrieve vs ky alone (the SDK's retry and timeout) + JSON.parse",
    r1,
    'ms/call',
    '≤ 1.10',
  );

  const r1raw = await compare(
    CALLS,
    async () => JSON.parse(await (await fetch(plain, { headers })).text()),
    () => client.organizations.retrieve(PLAIN_ORG),
  );
  row('(reference) retrieve vs raw fetch + JSON.parse', r1raw, 'ms/call', '');

  const r1ky = await compare(
    CALLS,
    async () => JSON.parse(await (await fetch(plain, { headers })).text()),
    async () => JSON.parse(await kyGet(plain).text()),
  );
  row("(reference) ky alone, the SDK's retry and timeout, vs fetch", r1ky, 'ms/call', '');

  // ky's own per-call work, with no retries and no timeout: what no ky options can take away.
  const r1bare = await compare(
    CALLS,
    async () => JSON.parse(await (await fetch(plain, { headers })).text()),
    async () => JSON.parse(await ky(plain, { headers, retry: 0, timeout: false }).text()),
  );
  row('(reference) ky alone, no retry and no timeout, vs fetch', r1bare, 'ms/call', '');

  // cached 304 vs raw conditional fetch
  const tagged = `${base}/organizations/OrgBench00000001.json`;
  const first = await fetch(tagged, { headers });
  const etag = first.headers.get('etag') as string;
  const copy = JSON.parse(await first.text());
  await cached.organizations.retrieve(ORG);
  const r2 = await compare(
    CALLS,
    async () => {
      const res = await fetch(tagged, { headers: { ...headers, 'if-none-match': etag } });
      await res.arrayBuffer();
      return res.status === 304 ? copy : null;
    },
    () => cached.organizations.retrieve(ORG),
  );
  row('(reference) cached 304 vs raw conditional fetch', r2, 'ms/call', '');

  // iterating vs a hand loop
  const r3 = await compare(short ? 2 : 5, handLoop(kyGet, stubListUrl(base)), iterate(client, ORG));
  row(
    "stub server (the client's own cost): iterating a list vs a hand loop over ky alone (configured the same)",
    r3,
    'ms/list',
    '≤ 1.10',
  );
  // The same loop checking each page as the SDK must (cases.ts `checkedPage`): where the SDK's
  // cost beyond the loop goes, the check or the rest.
  const r3checked = await compare(
    short ? 2 : 5,
    handLoop(kyGet, stubListUrl(base), checkedPage),
    iterate(client, ORG),
  );
  row(
    '(reference) iterating vs the same hand loop checking each page as the SDK does',
    r3checked,
    'ms/list',
    '',
  );

  // The same two targets against the reference server on PostgreSQL (what issue #27 names): the
  // SDK's cost beside a server's, where the rows above measure it beside a stub's, which answers
  // from memory in a fraction of the time.
  const real = await referenceServer();
  const realClient = new Marketplace({ baseUrl: real.url, token: real.token, cache: false });
  const realHeaders = { authorization: `Bearer ${real.token}`, accept: 'application/json' };
  const realOrg = OrganizationId.parse(real.organizationId);
  const realKyGet = kyAlone(realHeaders);
  const realShow = `${real.url}/organizations/${real.organizationId}.json`;
  const r5 = await compare(
    CALLS,
    async () => JSON.parse(await realKyGet(realShow).text()),
    () => realClient.organizations.retrieve(realOrg),
  );
  row(
    'against the reference server (PostgreSQL): retrieve vs ky alone (configured the same) + JSON.parse',
    r5,
    'ms/call',
    '≤ 1.10',
  );
  const realList = `${real.url}/organizations/${real.organizationId}/collabs.json`;
  const r6 = await compare(short ? 10 : 100, handLoop(realKyGet, realList), iterate(realClient, realOrg));
  row(
    `against the reference server (PostgreSQL): iterating ${real.collabs} collabs vs a hand loop over ky alone`,
    r6,
    'ms/list',
    '≤ 1.10',
  );

  // concurrency 4 vs sequential at 20 ms per page
  const slow = await stub({ BENCH_ITEMS: '400', BENCH_LATENCY_MS: '20' });
  const slowClient = new Marketplace({ baseUrl: slow, token });
  const all = (concurrency: number) => async () => {
    let n = 0;
    for await (const _ of slowClient.collabs.list(ORG, {}, { concurrency })) n++;
    return n;
  };
  const r4 = await compare(1, all(1), all(4));
  rows.push([
    'concurrency 4 vs sequential, 20 pages at 20 ms',
    `${r4.a.toFixed(0)} / ${r4.b.toFixed(0)} ms`,
    `${(r4.a / r4.b).toFixed(2)}× faster`,
    '',
    '≥ 3× faster',
  ]);

  // heap growth over 10 000 items
  const big = await stub({ BENCH_ITEMS: '10000' });
  const bigClient = new Marketplace({ baseUrl: big, token });
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  // Growth: the heap still in use after a collection, sampled every 1 000 items (what iterating
  // keeps); garbage not yet collected is not growth.
  let grown = 0;
  let n = 0;
  for await (const _ of bigClient.collabs.list(ORG)) {
    if (++n % 1000 === 0) {
      gc?.();
      grown = Math.max(grown, process.memoryUsage().heapUsed - before);
    }
  }
  rows.push([
    `heap growth while iterating ${n} items${gc ? '' : ' (no --expose-gc: garbage included)'}`,
    `+${(grown / 2 ** 20).toFixed(1)} MB at most`,
    '',
    '',
    '< 30 MB',
  ]);

  console.log(`\n## SDK (best of ${ROUNDS} rounds, baseline / SDK)\n`);
  console.log(
    '| case | baseline / SDK (wall) | ratio | client CPU per call, baseline / SDK (ratio) | target |',
  );
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
} finally {
  // The reference server's process drops its database before it exits.
  await stopChildren();
}
