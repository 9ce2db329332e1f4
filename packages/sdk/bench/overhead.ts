/**
 * The SDK's own CPU per call with no network: a `fetch` that answers at once, so that what is
 * timed is the client's work alone (`retrieve` and a list's page against hand-written `fetch`
 * code, and ky alone). `SDK_BEFORE=<path to another checkout's packages/sdk/src/index.ts>` adds
 * that version's `retrieve` and page, for a before/after in one process; `ONLY=raw;sdk retrieve`
 * picks cases; `N` calls a round, `ROUNDS` rounds (taken in turn by the cases).
 * Run from the repository root: `node --import tsx --conditions=@app/source packages/sdk/bench/overhead.ts`.
 */
import { endpoints, fastCheck, OrganizationId, PAGE_SIZE, PAGINATION_HEADERS } from '@app/schemas';
import { Marketplace } from '@app/sdk';
import ky from 'ky';
import { retryPolicy } from '../src/core/retry.js';
import { collab, organizationBody } from './bodies.js';

const body = organizationBody('OrgBench00000002');
const answer = () =>
  new Response(body, { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } });
const pageBody = JSON.stringify(Array.from({ length: PAGE_SIZE }, (_, i) => collab(i)));
const pageHeaders = {
  'content-type': 'application/json; charset=utf-8',
  [PAGINATION_HEADERS.currentPage]: '1',
  [PAGINATION_HEADERS.pageItems]: String(PAGE_SIZE),
  [PAGINATION_HEADERS.totalCount]: '40',
  [PAGINATION_HEADERS.totalPages]: '2',
};
const fetchNow = async (input: string | URL | Request, _init?: RequestInit) =>
  String(input instanceof Request ? input.url : input).includes('/collabs.json')
    ? new Response(pageBody, { status: 200, headers: pageHeaders })
    : answer();
const pageSchema = endpoints.collabs.list.response;
const pageJson: unknown = JSON.parse(pageBody);
const base = 'http://127.0.0.1:9';
const url = `${base}/organizations/OrgBench00000002.json`;
const headers = { authorization: 'Bearer mkt_bench', accept: 'application/json' };
const options = { baseUrl: base, token: 'mkt_bench', cache: false, fetch: fetchNow } as const;
const Before = process.env.SDK_BEFORE
  ? ((await import(process.env.SDK_BEFORE)) as { Marketplace: typeof Marketplace }).Marketplace
  : undefined;
const before = Before && new Before(options);
const client = new Marketplace(options);
const id = OrganizationId.parse('OrgBench00000002');
const N = Number(process.env.N ?? 20_000);

/**
 * Best CPU and wall time per call of each case over `ROUNDS` rounds of `N` calls. The rounds go
 * round the cases in turn, so that a burst of load from elsewhere on the machine falls on all of
 * them rather than on one.
 */
async function time(cases: Array<[string, () => Promise<unknown>]>) {
  for (const [, run] of cases) for (let i = 0; i < 2000; i++) await run();
  const best = cases.map(() => ({ cpu: Number.POSITIVE_INFINITY, wall: Number.POSITIVE_INFINITY }));
  for (let round = 0; round < Number(process.env.ROUNDS ?? 5); round++)
    for (const [i, [, run]] of cases.entries()) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      for (let n = 0; n < N; n++) await run();
      const wall = ((performance.now() - t0) * 1000) / N;
      const c = process.cpuUsage(c0);
      const b = best[i] as { cpu: number; wall: number };
      b.cpu = Math.min(b.cpu, (c.user + c.system) / N);
      b.wall = Math.min(b.wall, wall);
    }
  for (const [i, [label]] of cases.entries()) {
    const { cpu, wall } = best[i] as { cpu: number; wall: number };
    console.log(
      `${label.padEnd(44)} ${cpu.toFixed(1).padStart(6)} µs CPU ${wall.toFixed(1).padStart(6)} µs wall`,
    );
  }
}

/** A page through ky alone, with the SDK's retry policy and timeout. */
const kyPage = () =>
  ky(`${base}/organizations/OrgBench00000002/collabs.json?page=1`, {
    headers,
    retry: retryPolicy('GET', 3, Math.random),
    timeout: 30_000,
    fetch: fetchNow,
  });

const cases: Record<string, () => Promise<unknown>> = {
  raw: async () => JSON.parse(await (await fetchNow(url, { headers })).text()),
  'raw + new Request': async () => JSON.parse(await (await fetchNow(new Request(url, { headers }))).text()),
  'ky, retry 0, timeout false': async () =>
    JSON.parse(await ky(url, { headers, retry: 0, timeout: false, fetch: fetchNow }).text()),
  'ky, defaults': async () => JSON.parse(await ky(url, { headers, fetch: fetchNow }).text()),
  // The target's baseline (sdk.ts): ky alone, configured as the SDK configures it.
  "ky, the SDK's retry and timeout": async () =>
    JSON.parse(
      await ky(url, {
        headers,
        retry: retryPolicy('GET', 3, Math.random),
        timeout: 30_000,
        fetch: fetchNow,
      }).text(),
    ),
  'sdk retrieve': () => client.organizations.retrieve(id),
  'raw page': async () => {
    const res = await fetchNow(`${base}/organizations/OrgBench00000002/collabs.json?page=1`, { headers });
    return [Number(res.headers.get(PAGINATION_HEADERS.totalPages)), JSON.parse(await res.text())];
  },
  "ky page, the SDK's retry and timeout": async () => {
    const res = kyPage();
    return [Number((await res).headers.get(PAGINATION_HEADERS.totalPages)), JSON.parse(await res.text())];
  },
  // The same and the zod check of the items: what is left of the SDK's page cost beside it is its own code.
  "ky page + the SDK's zod check": async () => {
    const res = kyPage();
    const total = Number((await res).headers.get(PAGINATION_HEADERS.totalPages));
    return [total, endpoints.collabs.list.response.parse(JSON.parse(await res.text()))];
  },
  // The same with the SDK's fast check in front of zod (what parseResponse does).
  "ky page + the SDK's fast check": async () => {
    const res = kyPage();
    const total = Number((await res).headers.get(PAGINATION_HEADERS.totalPages));
    const json: unknown = JSON.parse(await res.text());
    return [total, fastCheck(pageSchema)(json) ? json : pageSchema.parse(json)];
  },
  // The check alone, on one parsed page of 20 items: zod's parse, and the fast check.
  'zod parse of a page': async () => pageSchema.parse(pageJson),
  'fast check of a page': async () => fastCheck(pageSchema)(pageJson),
  'sdk page': () => client.collabs.list(id).toArray({ limit: PAGE_SIZE }),
};
if (before) {
  cases['sdk retrieve (before)'] = () => before.organizations.retrieve(id);
  cases['sdk page (before)'] = () => before.collabs.list(id).toArray({ limit: PAGE_SIZE });
}
const only = process.env.ONLY?.split(';');
await time(Object.entries(cases).filter(([name]) => !only || only.includes(name)));
