/**
 * The SDK's CommonJS build loaded as jest loads a module without `--experimental-vm-modules`:
 * compiled by `vm.Script` with a dynamic-import callback, which Node refuses without that flag, so
 * any `import()` left in the build rejects. `readFileValue` (a file field given as a path, as the
 * CLI and an integrator's `callOperation` give it) reads the file there too.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, test } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'sdk-cjs-test-'));
const built = join(dir, 'operations.cjs');

beforeAll(async () => {
  // As tsup builds `dist/operations.cjs`: CommonJS for Node.
  await build({
    entryPoints: [resolve(import.meta.dirname, '../src/operations.ts')],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node22',
    conditions: ['@app/source'],
    outfile: built,
    logLevel: 'silent',
  });
  writeFileSync(join(dir, 'logo.png'), new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('readFileValue reads a file in a module loaded as jest loads it (no --experimental-vm-modules)', async () => {
  const script = `
    const { readFileSync } = require('node:fs');
    const { createRequire } = require('node:module');
    const vm = require('node:vm');
    const file = ${JSON.stringify(built)};
    const module = { exports: {} };
    const wrapped = '(function (module, exports, require) {' + readFileSync(file, 'utf8') + '\\n})';
    const script = new vm.Script(wrapped, { filename: file, importModuleDynamically: () => { throw new Error('never called'); } });
    script.runInThisContext()(module, module.exports, createRequire(file));
    module.exports.readFileValue(${JSON.stringify(join(dir, 'logo.png'))}, 'logo').then(
      (blob) => console.log('read ' + blob.size + ' bytes, ' + blob.type),
      (error) => console.log('rejected: ' + (error.code ?? error.message)),
    );`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  expect({ stdout, stderr, code }).toEqual({ stdout: 'read 4 bytes, image/png\n', stderr: '', code: 0 });
});
