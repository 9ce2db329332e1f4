/**
 * The show's CPU per request through `app.inject` (no sockets): the pipeline's own fixed cost,
 * hooks and handler and the database client, of this build and of another one in the same
 * process, alternating rounds, on one PostgreSQL database. Steadier than the HTTP bench on a busy
 * machine, since the socket writes (most of a show's CPU) are left out; it says what a change to
 * the pipeline saves, not where the targets stand. Run from packages/server after a build:
 * `node bench/pipeline.ts` (`BEFORE=<another checkout>/packages/server/dist/index.js` adds that
 * build; `N`, `ROUNDS`, `BENCH_DATABASE_URL`).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

type Server = typeof import('../src/index.js');

const N = Number(process.env.N ?? 3_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const HELPERS_KEY = 'bench-test-helpers-key-0123456789abcdef';
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const builds: Array<[string, string]> = [['this build', resolve('dist/index.js')]];
if (process.env.BEFORE) builds.push(['before', resolve(process.env.BEFORE)]);

const admin = new pg.Client({ connectionString: databaseUrl });
await admin.connect();
const name = `bench_pipeline_${process.pid}`;
await admin.query(`create database ${name}`);
const url = new URL(databaseUrl);
url.pathname = `/${name}`;
const env = {
  DATABASE_URL: url.href,
  MARKETPLACE_TEST_HELPERS_KEY: HELPERS_KEY,
  LOG_LEVEL: 'warn',
  MARKETPLACE_BASE_URL: 'http://127.0.0.1:3000',
};
try {
  const apps = [];
  for (const [label, path] of builds) {
    const server = (await import(pathToFileURL(path).href)) as Server;
    const config = server.loadConfig({ ...process.env, ...env });
    const orm = await server.openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
    if (apps.length === 0) await server.migrate(orm);
    const app = await server.buildApp({ config, orm });
    await app.ready();
    apps.push({ label, app, orm });
  }
  const first = apps[0]?.app as NonNullable<(typeof apps)[0]>['app'];
  const created = await first.inject({
    method: 'POST',
    url: '/test_helpers/users.json',
    headers: { authorization: `Bearer ${HELPERS_KEY}` },
    payload: { user: { name: 'Bench', email: 'bench@example.com' } },
  });
  const token = created.json().access_token.token as string;
  const headers = { authorization: `Bearer ${token}` };
  const org = (
    await first.inject({
      method: 'POST',
      url: '/organizations.json',
      headers,
      payload: { organization: { name: 'B' } },
    })
  ).json();
  // A full page of collabs (kept by the page cache after its first read, as on a running server).
  for (let i = 0; i < 20; i++)
    await first.inject({
      method: 'POST',
      url: `/organizations/${org.id}/collabs.json`,
      headers,
      payload: { collab: { name: `Collab ${i}`, brief: `# Collab ${i}` } },
    });
  const cases = [
    ['show', `/organizations/${org.id}.json`],
    ['list page', `/organizations/${org.id}/collabs.json`],
  ] as const;
  const best = new Map<string, number>();
  for (let round = 0; round < ROUNDS; round++)
    for (const { label, app } of apps)
      for (const [what, path] of cases) {
        const run = () => app.inject({ method: 'GET', url: path, headers });
        if (round === 0) for (let i = 0; i < N / 5; i++) await run();
        const start = process.cpuUsage();
        for (let i = 0; i < N; i++) {
          const res = await run();
          if (res.statusCode !== 200) throw new Error(`${label} ${path}: ${res.statusCode} ${res.body}`);
        }
        const used = process.cpuUsage(start);
        const key = `${label}: ${what}`;
        best.set(key, Math.min(best.get(key) ?? Number.POSITIVE_INFINITY, (used.user + used.system) / N));
      }
  for (const [key, us] of best)
    console.log(`${key.padEnd(24)} ${us.toFixed(1).padStart(7)} µs CPU per request`);
  for (const { app, orm } of apps) {
    await app.close();
    await orm.close();
  }
} finally {
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}
