import { defineConfig } from 'vitest/config';
import { sourceConditions } from './vitest.shared.js';

// The reliability suite (`pnpm test:reliability`): database faults, two instances on one
// PostgreSQL, and load over loopback. Not part of `pnpm test` (the root projects list only
// `packages/*/vitest.config.ts`, whose `*.test.ts` pattern does not match these files).
export default defineConfig({
  // Paths below are relative to this package, wherever the command is run from.
  root: import.meta.dirname,
  // Source resolution in every environment, the global set-up's included (vitest.shared.ts).
  plugins: [sourceConditions()],
  test: {
    name: 'server-reliability',
    include: ['test/reliability/**/*.reliability.ts'],
    globalSetup: ['test/reliability/global-setup.ts'],
    // One file at a time: the load figures must not share the two cores with another file.
    fileParallelism: false,
    // `global.gc()` before memory is measured.
    execArgv: ['--expose-gc'],
    hookTimeout: 60_000,
    testTimeout: 60_000,
  },
});
