/**
 * What the kit leaves when its process ends. A test process that used the kit exits by itself
 * once the server is closed: node:test and jest wait for the event loop to empty (vitest ends its
 * workers itself, and hid this). A created collab renders its brief in a worker thread, and an
 * idle one held the process for good. On PostgreSQL (the run with TEST_DATABASE_URL) the same
 * tests hold for its pool and connections, and a killed process's database is dropped later.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '@app/testing';
import pg from 'pg';
import { expect, it, onTestFinished } from 'vitest';

/** Set in the run on PostgreSQL (vitest.config.ts): every kit here, the children's too, runs on it. */
const postgresUrl = process.env.MARKETPLACE_TEST_DATABASE_URL;

/**
 * A Node process running `body` after `const { startTestServer } = await import(<the kit>)`,
 * killed and its script removed when the test ends. A file, not `-e`: worker threads inherit the
 * parent's execArgv, and each would run the script again.
 */
function runWithKit(body: string, env: NodeJS.ProcessEnv = process.env) {
  const kit = fileURLToPath(new URL('../src/index.ts', import.meta.url));
  const script = join(mkdtempSync(join(tmpdir(), 'kit-process-')), 'script.mjs');
  writeFileSync(script, `const { startTestServer } = await import(${JSON.stringify(kit)});\n${body}`);
  const child = spawn(process.execPath, ['--conditions=@app/source', '--import', 'tsx', script], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  onTestFinished(() => {
    child.kill('SIGKILL');
    rmSync(dirname(script), { recursive: true, force: true });
  });
  return child;
}

it('a process that created a collab and closed the server exits by itself, with code 0', async () => {
  const child = runWithKit(`const server = await startTestServer();
const client = server.client(await server.createUser());
const org = await client.organizations.create({ name: 'Acme' });
const collab = await client.collabs.create(org.id, { name: 'Launch' });
await server.close();
process.stdout.write(collab.brief.startsWith('<h2>') ? 'closed' : 'no brief');
`);
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  // A handle left open makes this wait forever: the test's timeout fails it.
  const [code] = (await once(child, 'close')) as [number | null];
  expect(stdout).toBe('closed');
  expect(code).toBe(0);
}, 60_000);

it("a process killed before close() leaves its server's folder, and the next start removes it", async () => {
  const child = runWithKit(`await startTestServer();
process.stdout.write('started');
setInterval(() => {}, 1000);
`);
  // A folder of a process that still runs (this one's parent) is left alone.
  const alive = mkdtempSync(join(tmpdir(), `mkt-test-server-${process.ppid}-`));
  onTestFinished(() => rmSync(alive, { recursive: true, force: true }));
  await once(child.stdout, 'data');
  child.kill('SIGKILL');
  await once(child, 'exit');
  const folders = () =>
    readdirSync(tmpdir()).filter((name) => name.startsWith(`mkt-test-server-${child.pid}-`));
  expect(folders()).toHaveLength(1);
  const server = await startTestServer();
  await server.close();
  expect(folders()).toEqual([]);
  expect(existsSync(alive)).toBe(true);
}, 60_000);

it('a process killed while it makes the snapshot leaves its folder, and the next start removes it', async () => {
  // An empty cache folder: the child's first start migrates a fresh PGlite in a folder of its own.
  const cache = mkdtempSync(join(tmpdir(), 'kit-cache-'));
  onTestFinished(() => rmSync(cache, { recursive: true, force: true }));
  // The child's own folder: other processes of the run (the snapshot tests in another worker) make
  // snapshot folders of their own in the same temp folder, which are alive and stay.
  let childPid: number | undefined;
  const made = new Promise<string>((resolve) => {
    const watcher = watch(tmpdir(), (_event, name) => {
      if (!name?.startsWith(`mkt-snapshot-${childPid}-`) || !existsSync(join(tmpdir(), name))) return;
      watcher.close();
      resolve(name);
    });
  });
  const child = runWithKit(`await startTestServer({ databaseUrl: 'pglite://memory' });`, {
    ...process.env,
    MARKETPLACE_TEST_CACHE_DIR: cache,
  });
  childPid = child.pid;
  const folder = await made;
  child.kill('SIGKILL');
  await once(child, 'exit');
  expect(existsSync(join(tmpdir(), folder))).toBe(true);
  const server = await startTestServer();
  await server.close();
  expect(existsSync(join(tmpdir(), folder))).toBe(false);
}, 60_000);

// Defined in the run on PostgreSQL only (TEST_DATABASE_URL; CI's tests:postgres).
if (postgresUrl)
  it('a process killed before close() leaves its database, and the next start drops it', async () => {
    const child = runWithKit(`const server = await startTestServer();
const [{ name }] = await server.sql('select current_database() as name');
process.stdout.write(name);
setInterval(() => {}, 1000);
`);
    const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
    const name = chunk.toString();
    expect(name).toMatch(/^mkt_kit_\d+_[0-9a-f]+$/);
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    onTestFinished(() => admin.end());
    const exists = async () =>
      (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(await exists()).toBe(true);
    // The server sees the killed process's connection end a moment after the process is gone.
    const pid = Number(/^mkt_kit_(\d+)_/.exec(name)?.[1]);
    while ((await admin.query('select 1 from pg_stat_activity where pid = $1', [pid])).rowCount) {}
    const server = await startTestServer();
    await server.close();
    expect(await exists()).toBe(false);
  }, 60_000);
