import { defineConfig } from 'vitest/config';

// The reliability suite (`pnpm test:reliability`): database faults, two instances on one
// PostgreSQL, and load over loopback. Not part of `pnpm test` (the root projects list only
// `packages/*/vitest.config.ts`, whose `*.test.ts` pattern does not match these files).
// Not `module`: Node does not know it, and with it @opentelemetry/api (loaded by the server's
// metrics) and the AWS SDK resolve to builds only a bundler can load.
const conditions = ['@app/source', 'node', 'development|production'];

export default defineConfig({
  // Paths below are relative to this package, wherever the command is run from.
  root: import.meta.dirname,
  resolve: { conditions },
  ssr: { resolve: { conditions } },
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
