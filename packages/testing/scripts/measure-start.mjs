/**
 * Start times of the test kit from the build (`@app/testing` → dist/index.js), as an integrator's
 * test file sees them: each run is a fresh Node process that imports the kit, starts a server (the
 * first start: the snapshot read from the cache, or made and cached by the first process of all),
 * closes it and starts `STARTS - 1` more (later starts); wall and CPU time. Each start is used (a
 * user, a write, `reset()`), so this also checks the built kit (CI runs it once). Needs
 * `pnpm run build` (server, SDK and kit) first.
 *
 *   node packages/testing/scripts/measure-start.mjs [runs=5] [starts=3]
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const [runs = 5, starts = 3] = process.argv.slice(2).map(Number);
const child = `
const t0 = performance.now();
const { startTestServer } = await import('@app/testing');
const imported = performance.now() - t0;
const times = [];
const cpu = [];
for (let i = 0; i < ${starts}; i++) {
  const s = performance.now();
  const c = process.cpuUsage();
  const server = await startTestServer();
  times.push(performance.now() - s);
  const used = process.cpuUsage(c);
  cpu.push((used.user + used.system) / 1000);
  // The kit works from the build: a user, a write, a reset that empties the sandbox, a close.
  const client = server.client(await server.createUser());
  await client.organizations.create({ name: 'Acme' });
  await server.reset();
  const status = await client.organizations.list().then(() => 200, (e) => e.status);
  if (status !== 401) throw new Error('a token made before reset() still works: ' + status);
  await server.close();
}
console.log(JSON.stringify({ imported, times, cpu }));
`;
const cwd = fileURLToPath(new URL('..', import.meta.url));
const rows = [];
for (let r = 0; r < runs; r++) {
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', child], { cwd, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(out.stderr);
  rows.push(JSON.parse(out.stdout.trim().split('\n').at(-1)));
}
const ms = (v) => `${Math.round(v)} ms`;
const range = (vs) =>
  `${ms(Math.min(...vs))}–${ms(Math.max(...vs))} (median ${ms(vs.sort((a, b) => a - b)[Math.floor(vs.length / 2)])})`;
console.log(`node ${process.version}, ${runs} processes, ${starts} starts each`);
console.log(`import:        ${range(rows.map((r) => r.imported))}`);
// The first start of the first process makes the snapshot when the cache has none yet.
console.log(`first start of the first process: ${ms(rows[0].times[0])} (CPU ${ms(rows[0].cpu[0])})`);
if (runs > 1) console.log(`first start:   ${range(rows.slice(1).map((r) => r.times[0]))} (later processes)`);
console.log(`later starts:  ${range(rows.flatMap((r) => r.times.slice(1)))}`);
// CPU time of the starting process: close to the wall time on an idle machine, and much less
// disturbed by other processes than the wall time (PGlite's start-up is single-threaded WASM work).
if (runs > 1) console.log(`first start, CPU time:  ${range(rows.slice(1).map((r) => r.cpu[0]))}`);
console.log(`later starts, CPU time: ${range(rows.flatMap((r) => r.cpu.slice(1)))}`);
