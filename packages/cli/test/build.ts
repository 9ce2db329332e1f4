import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The tests run the CLI as users get it, the built `dist/bin.js`: build it once per run (tsup, about
 * 3 s), so `pnpm test` works from a fresh clone without a `pnpm run build` first.
 */
export default function setup(): void {
  const root = join(import.meta.dirname, '..');
  execFileSync(join(root, 'node_modules', '.bin', 'tsup'), ['--silent'], { cwd: root, stdio: 'inherit' });
}
