/**
 * A test process that used the kit exits by itself once the server is closed: node:test and jest
 * wait for the event loop to empty (vitest ends its workers itself, and hid this). A created
 * collab renders its brief in a worker thread, and an idle one held the process for good.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it, onTestFinished } from 'vitest';

it('a process that created a collab and closed the server exits by itself, with code 0', async () => {
  const kit = fileURLToPath(new URL('../src/index.ts', import.meta.url));
  // A file, not `-e`: worker threads inherit the parent's execArgv, and each would run it again.
  const script = join(mkdtempSync(join(tmpdir(), 'kit-exit-')), 'use-kit.mjs');
  writeFileSync(
    script,
    `const { startTestServer } = await import(${JSON.stringify(kit)});
const server = await startTestServer();
const client = server.client(await server.createUser());
const org = await client.organizations.create({ name: 'Acme' });
const collab = await client.collabs.create(org.id, { name: 'Launch' });
await server.close();
process.stdout.write(collab.brief.startsWith('<h2>') ? 'closed' : 'no brief');
`,
  );
  const child = spawn(process.execPath, ['--conditions=@app/source', '--import', 'tsx', script], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  onTestFinished(() => {
    child.kill('SIGKILL');
    rmSync(dirname(script), { recursive: true, force: true });
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  // A handle left open makes this wait forever: the test's timeout fails it.
  const [code] = (await once(child, 'exit')) as [number | null];
  expect(stdout).toBe('closed');
  expect(code).toBe(0);
}, 60_000);
