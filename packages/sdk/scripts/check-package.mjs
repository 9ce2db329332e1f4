// The package as it would be published: builds it, packs the tarball with pnpm (which rewrites the
// workspace: ranges), lints the tarball with publint and Are the Types Wrong, then installs it into
// a scratch consumer (extracted into node_modules, next to its one dependency, zod) and runs the
// ESM and CJS smoke scripts there, each making a real request, then type-checks the README's
// examples there as the strictest consumer would (scripts/consumer-strict.ts). Exits non-zero on
// any failure.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const run = (command, args, cwd = root) => {
  console.log(`\n$ ${[command, ...args].join(' ')}`);
  execFileSync(command, args, { cwd, stdio: 'inherit' });
};
// pnpm is on PATH under `pnpm run`/`npx pnpm`; otherwise fetch the repository's version.
const pnpm = spawnSync('pnpm', ['--version']).status === 0 ? ['pnpm'] : ['npx', '--yes', 'pnpm@10.34.9'];

const scratch = mkdtempSync(join(tmpdir(), 'sdk-package-'));
try {
  // CI builds once before every task (`--no-build`): a second build here would empty dist/ under
  // the tasks that read it meanwhile (API Extractor found a chunk gone).
  if (!process.argv.includes('--no-build')) run(pnpm[0], [...pnpm.slice(1), 'run', 'build']);
  run(pnpm[0], [...pnpm.slice(1), 'pack', '--pack-destination', scratch]);
  const tarball = join(
    scratch,
    readdirSync(scratch).find((f) => f.endsWith('.tgz')),
  );

  run(bin('publint'), ['run', '--strict', tarball]);
  run(bin('attw'), [tarball]);

  const consumer = join(scratch, 'consumer');
  const installed = join(consumer, 'node_modules', '@app', 'sdk');
  mkdirSync(installed, { recursive: true });
  run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  const zod = dirname(createRequire(join(root, 'package.json')).resolve('zod/package.json'));
  symlinkSync(zod, join(consumer, 'node_modules', 'zod'), 'dir');
  for (const file of ['smoke.mjs', 'smoke.cjs', 'smoke-server.mjs'])
    copyFileSync(join(root, 'scripts', file), join(consumer, file));
  run(process.execPath, ['smoke.mjs'], consumer);
  run(process.execPath, ['smoke.cjs'], consumer);

  // The README's examples against the tarball's declarations, as the strictest consumer compiles them.
  const repository = createRequire(join(root, '..', '..', 'package.json'));
  copyFileSync(join(root, 'scripts', 'consumer-strict.ts'), join(consumer, 'consumer-strict.ts'));
  writeFileSync(join(consumer, 'package.json'), '{ "type": "module" }\n');
  const compilerOptions = {
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: false,
    module: 'nodenext',
    target: 'es2023',
    lib: ['es2023', 'dom'],
    noEmit: true,
    types: ['node'],
    typeRoots: [join(dirname(repository.resolve('@types/node/package.json')), '..')],
  };
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({ compilerOptions, files: ['consumer-strict.ts'] }, null, 2),
  );
  run(process.execPath, [repository.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], consumer);
  console.log('\npackage check ok');
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
