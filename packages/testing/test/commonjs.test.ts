/**
 * The kit's CommonJS build (`dist/index.cjs`, what `require('@app/testing')` loads: jest's CommonJS
 * test files, ts-jest) in a process that cannot `require()` an ES module, as jest runs them without
 * `--experimental-vm-modules`. The server is an ES module only (so are its ORM's packages): the kit
 * can still be loaded, and its start rejects with one line that says what to run.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'tsup';
import { afterAll, beforeAll, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
// Under the package's node_modules (out of git's sight), so that the build's
// `require('@app/server/…')` finds the workspace's server.
const cache = join(root, 'node_modules', '.cache');
mkdirSync(cache, { recursive: true });
const outDir = mkdtempSync(join(cache, 'kit-cjs-test-'));

beforeAll(async () => {
  await build({
    config: false,
    entry: { index: join(root, 'src/index.ts') },
    format: ['cjs'],
    outDir,
    platform: 'node',
    target: 'node22',
    silent: true,
    external: ['@app/server', '@app/sdk', '@electric-sql/pglite', 'pg'],
  });
});

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

/**
 * Runs `body` in a CommonJS script of its own beside the build, in a child process, and resolves to
 * what it printed and how it ended. `jest`: the build is loaded as jest loads a module without
 * `--experimental-vm-modules` (compiled by `vm.Script` with a dynamic-import callback, which Node
 * refuses without that flag); otherwise by `require()`.
 */
async function runCommonJs(args: string[], loader: 'require' | 'jest') {
  const built = JSON.stringify(join(outDir, 'index.cjs'));
  const load =
    loader === 'require'
      ? `require(${built})`
      : `(() => {
    const { readFileSync } = require('node:fs');
    const { createRequire } = require('node:module');
    const vm = require('node:vm');
    const module = { exports: {} };
    const wrapped = '(function (module, exports, require) {' + readFileSync(${built}, 'utf8') + '\\n})';
    const script = new vm.Script(wrapped, { filename: ${built}, importModuleDynamically: () => { throw new Error('never called'); } });
    script.runInThisContext()(module, module.exports, createRequire(${built}));
    return module.exports;
  })()`;
  const script = `${load}.startTestServer().then(
    () => console.log('started'),
    (error) => console.log('rejected: ' + error.message),
  )`;
  // `@app/source`: the server's TypeScript source (an ES module, as its build is) without a build.
  const child = spawn(process.execPath, [...args, '--conditions=@app/source', '-e', script], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  return { stdout, stderr, code };
}

const refused = {
  stdout:
    'rejected: @app/testing cannot load @app/server, an ES module, from CommonJS: under jest, run it with NODE_OPTIONS=--experimental-vm-modules (README, "Jest")\n',
  stderr: '',
  code: 0,
};

it('loaded as jest loads it without --experimental-vm-modules: the kit loads, its start rejects with one line', async () => {
  expect(await runCommonJs([], 'jest')).toEqual(refused);
});

it('require() of ES modules turned off (--no-experimental-require-module): the same line', async () => {
  expect(await runCommonJs(['--no-experimental-require-module'], 'require')).toEqual(refused);
});
