/**
 * What the kit leaves when its process ends. A test process that used the kit exits by itself
 * once the server is closed: node:test and jest wait for the event loop to empty (vitest ends its
 * workers itself, and hid this). A created collab renders its brief in a worker thread, and an
 * idle one held the process for good.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '@app/testing';
import { expect, it, onTestFinished } from 'vitest';

/**
 * A Node process running `body` after `const { startTestServer } = await import(<the kit>)`,
 * killed and its script removed when the test ends. A file, not `-e`: worker threads inherit the
 * parent's execArgv, and each would run the script again.
 */
function runWithKit(body: string) {
  const kit = fileURLToPath(new URL('../src/index.ts', import.meta.url));
  const script = join(mkdtempSync(join(tmpdir(), 'kit-process-')), 'script.mjs');
  writeFileSync(script, `const { startTestServer } = await import(${JSON.stringify(kit)});\n${body}`);
  const child = spawn(process.execPath, ['--conditions=@app/source', '--import', 'tsx', script], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
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
  const [code] = (await once(child, 'exit')) as [number | null];
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
