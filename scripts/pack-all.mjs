// `pnpm pack:all`: installable tarballs of every package of the workspace in one folder.
//
// Every package under packages/* whose package.json is not `"private": true` is packed with
// `pnpm pack` (which replaces `workspace:` ranges with the packages' versions) into `.packs/`
// (git-ignored; emptied first; `--out DIR` for another folder). A new package is picked up without changing this script. The
// build runs first unless `--no-build` is given (CI packs the build its `build` task made).
//
// Each tarball is then checked: it holds its package.json and its `dist/`, and nothing that must
// not be published (tests, benches, data directories, local databases, tarballs, `.env` files,
// source maps without the sources they map). A table of the tarballs and their sizes (packed and unpacked) ends the output;
// `--json` writes it as JSON to `.packs/packs.json` too.
//
// Then, outside the workspace, with plain npm: `npm install .packs/*.tgz` (every tarball at once,
// so that the packages find each other; third-party dependencies come from the registry).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const args = new Set(argv);
// `--out DIR` writes them elsewhere (CI's container task, next to the install task's `.packs/`).
const out = argv.includes('--out') ? resolve(argv[argv.indexOf('--out') + 1]) : join(root, '.packs');

// Under `pnpm run`, npm_execpath is pnpm itself; elsewhere, the repository's pnpm through npx.
const execPath = process.env.npm_execpath ?? '';
const pnpm = /pnpm\.c?js$/.test(execPath)
  ? [process.execPath, execPath]
  : spawnSync('pnpm', ['--version']).status === 0
    ? ['pnpm']
    : ['npx', '--yes', 'pnpm@10.34.9'];
const run = (argv, cwd) =>
  execFileSync(argv[0], argv.slice(1), { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

/** Paths inside a tarball (under `package/`) that must never be published. */
const FORBIDDEN = [
  /(^|\/)(test|tests|__tests__|bench|benches|fixtures|coverage)\//,
  /\.(test|spec|bench)\.[cm]?[jt]sx?$/,
  /(^|\/)\.data[^/]*\//,
  /(^|\/)pglite\//,
  /\.tgz$/,
  /(^|\/)\.env/,
  /(^|\/)(tsconfig|vitest[^/]*|tsup\.config)\.[a-z.]+$/,
];

const packages = readdirSync(join(root, 'packages'))
  .map((name) => join(root, 'packages', name))
  .filter((dir) => existsSync(join(dir, 'package.json')))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
  .filter(({ manifest }) => manifest.private !== true);

if (!args.has('--no-build')) {
  console.log('$ pnpm run build');
  execFileSync(pnpm[0], [...pnpm.slice(1), 'run', 'build'], { cwd: root, stdio: 'inherit' });
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const rows = [];
const problems = [];
for (const { dir, manifest } of packages) {
  const missing = ['dist'].filter((path) => !existsSync(join(dir, path)));
  if (missing.length > 0) {
    problems.push(`${manifest.name}: no ${missing.join(', ')} (run the build first, or drop --no-build)`);
    continue;
  }
  if (!Array.isArray(manifest.files)) problems.push(`${manifest.name}: package.json has no "files" field`);
  const before = new Set(readdirSync(out));
  run([...pnpm, 'pack', '--pack-destination', out], dir);
  const file = readdirSync(out).find((f) => f.endsWith('.tgz') && !before.has(f));
  if (!file) {
    problems.push(`${manifest.name}: pnpm pack wrote no tarball`);
    continue;
  }
  const tarball = join(out, file);
  // `tar -tvzf`: one line per entry with its size in the third column.
  const entries = run(['tar', '-tvzf', tarball], out)
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const fields = line.trim().split(/\s+/);
      return {
        size: Number(fields[2]),
        path: fields
          .slice(5)
          .join(' ')
          .replace(/^package\//, ''),
      };
    });
  const packed = JSON.parse(run(['tar', '-xzOf', tarball, 'package/package.json'], out));
  // Source maps only next to the sources they map (the SDK and the schemas ship `src/`).
  const shipsSources = entries.some((e) => e.path.startsWith('src/'));
  for (const { path } of entries)
    if (path.endsWith('.map') && !shipsSources)
      problems.push(`${manifest.name}: ${path} maps sources not packed`);
  for (const { path } of entries)
    if (FORBIDDEN.some((pattern) => pattern.test(path)))
      problems.push(`${manifest.name}: ${path} must not be packed`);
  if (!entries.some((e) => e.path === 'package.json')) problems.push(`${manifest.name}: no package.json`);
  if (!entries.some((e) => e.path.startsWith('dist/'))) problems.push(`${manifest.name}: no dist/`);
  const ranges = JSON.stringify([packed.dependencies, packed.peerDependencies, packed.optionalDependencies]);
  if (ranges.includes('workspace:'))
    problems.push(`${manifest.name}: a workspace: range is left in package.json`);
  rows.push({
    name: manifest.name,
    version: manifest.version,
    file,
    files: entries.length,
    packedBytes: statSync(tarball).size,
    unpackedBytes: entries.reduce((sum, e) => sum + (Number.isFinite(e.size) ? e.size : 0), 0),
  });
}

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
console.log(`\nTarballs in ${out}:`);
console.log(['package', 'file', 'files', 'packed', 'unpacked'].join('\t'));
for (const r of rows)
  console.log([r.name, r.file, r.files, mb(r.packedBytes), mb(r.unpackedBytes)].join('\t'));
if (args.has('--json')) writeFileSync(join(out, 'packs.json'), `${JSON.stringify(rows, null, 2)}\n`);
if (problems.length > 0) {
  for (const problem of problems) console.error(`pack:all: ${problem}`);
  process.exit(1);
}
console.log(`\nInstall them in any project: npm install ${out}/*.tgz`);
