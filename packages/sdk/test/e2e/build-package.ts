import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * A vitest `globalSetup` of the bins' packages (the CLI, the MCP server): their tests run the bin
 * as users get it, the built `dist/bin.js`, so the package is built once per run (tsup, 3-8 s)
 * and `pnpm test` works from a fresh clone without a `pnpm run build` first. A build newer than
 * everything it is made from (the package's sources and config, the SDK's and the schemas'
 * sources it bundles, the lockfile) is used as it is: after `pnpm run build` (CI's `build` task),
 * building again only made the tests start later, with a core idle.
 */
export default function setup(project: TestProject): void {
  const root = project.config.root;
  if (isFresh(root)) return;
  execFileSync(join(root, 'node_modules', '.bin', 'tsup'), ['--silent'], { cwd: root, stdio: 'inherit' });
}

/** Whether `<root>/dist/bin.js` is newer than every input of the build. */
function isFresh(root: string): boolean {
  const built = join(root, 'dist', 'bin.js');
  if (!existsSync(built)) return false;
  const workspace = join(root, '..', '..');
  const inputs = [
    join(root, 'src'),
    join(root, 'package.json'),
    join(root, 'tsup.config.ts'),
    join(workspace, 'packages', 'sdk', 'src'),
    join(workspace, 'packages', 'schemas', 'src'),
    join(workspace, 'scripts', 'tsup-bin.ts'),
    join(workspace, 'pnpm-lock.yaml'),
  ];
  const builtAt = statSync(built).mtimeMs;
  return inputs.every((input) => newestChange(input) < builtAt);
}

/** The latest modification time of `path`, or of any file under it. */
function newestChange(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestChange(join(path, entry)));
  return newest;
}
