// The flow on Node.js 22 or 24 (`node.mjs 22|24`), each from the `node` npm package: 24 is the
// repository's own (the root devDependency), 22 is installed once with npm into
// node_modules/.cache (the `node` package's binary cannot sit beside 24 in one package's bins).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runEntry, sdkRoot, skip, versionOf, withServer } from './harness.mjs';

/** The Node.js 22 release the SDK is checked on (the oldest line it supports). */
const NODE_22 = '22.23.3';

const major = process.argv[2];
let node;
if (major === '24') {
  node = join(sdkRoot, '..', '..', 'node_modules', 'node', 'bin', 'node');
} else if (major === '22') {
  const prefix = join(sdkRoot, 'node_modules', '.cache', 'sdk-runtimes', `node-${NODE_22}`);
  node = join(prefix, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(node)) {
    const npm = ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund'];
    const out = spawnSync('npm', [...npm, `node@${NODE_22}`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (out.status !== 0 || !existsSync(node))
      skip(
        `node@${NODE_22} did not install from npm: ${`${out.error?.message ?? out.stderr}`.trim().split('\n').at(-1)}`,
      );
  }
} else {
  throw new Error('usage: node.mjs 22|24');
}
const version = versionOf(node, ['--version'], `the node package's binary (${node})`);
if (!version.startsWith(`v${major}.`)) throw new Error(`${node} is ${version}, not Node.js ${major}`);
await withServer(`Node.js ${version}`, (server) => runEntry(node, [], server));
