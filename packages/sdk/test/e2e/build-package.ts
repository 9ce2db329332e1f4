import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * A vitest `globalSetup` of the bins' packages (the CLI, the MCP server): their tests run the bin
 * as users get it, the built `dist/bin.js`, so the package is built once per run (tsup, about 3 s)
 * and `pnpm test` works from a fresh clone without a `pnpm run build` first.
 */
export default function setup(project: TestProject): void {
  const root = project.config.root;
  execFileSync(join(root, 'node_modules', '.bin', 'tsup'), ['--silent'], { cwd: root, stdio: 'inherit' });
}
