// A bin package as it would be published (`node scripts/check-bin-package.mjs packages/mcp`):
// builds it, packs the tarball with pnpm (which rewrites the workspace: ranges), lints the tarball
// with publint, then installs it into a scratch consumer (extracted into node_modules, next to its
// dependencies, linked from this workspace) and runs each of its bins with --help and --version.
// Exits non-zero on any failure.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? '.');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const run = (command, args, cwd = root) => {
  console.log(`\n$ ${[command, ...args].join(' ')}`);
  return execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
};
const pnpm = spawnSync('pnpm', ['--version']).status === 0 ? ['pnpm'] : ['npx', '--yes', 'pnpm@10.34.9'];

const scratch = mkdtempSync(join(tmpdir(), 'bin-package-'));
try {
  // CI builds once before every task (`--no-build`): a second build here would empty dist/ under
  // the tasks that read it meanwhile.
  if (!process.argv.includes('--no-build')) console.log(run(pnpm[0], [...pnpm.slice(1), 'run', 'build']));
  run(pnpm[0], [...pnpm.slice(1), 'pack', '--pack-destination', scratch]);
  const tarball = join(
    scratch,
    readdirSync(scratch).find((f) => f.endsWith('.tgz')),
  );
  console.log(run(join(root, 'node_modules', '.bin', 'publint'), ['run', '--strict', tarball]));

  const modules = join(scratch, 'consumer', 'node_modules');
  const installed = join(modules, ...manifest.name.split('/'));
  mkdirSync(installed, { recursive: true });
  run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    const target = join(modules, ...dependency.split('/'));
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(realpathSync(join(root, 'node_modules', dependency)), target, 'dir');
  }
  for (const [name, path] of Object.entries(manifest.bin)) {
    const help = run(process.execPath, [join(installed, path), '--help'], scratch);
    if (!help.startsWith('Usage:')) throw new Error(`${name} --help printed: ${help}`);
    const version = run(process.execPath, [join(installed, path), '--version'], scratch).trim();
    if (version !== manifest.version) throw new Error(`${name} --version printed ${version}`);
  }
  console.log('\npackage check ok');
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
