import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Vitest's default leaves one core idle (one worker on a 2-core machine); the test files spend
// much of their time waiting on databases, sockets and child processes, so run one more file than
// there are cores (measured on 2 cores: 127 s instead of 206 s for the PostgreSQL run). Set through
// the environment because `test.maxWorkers` here is not applied to the projects below.
process.env.VITEST_MAX_WORKERS ??= String(availableParallelism() + 1);

// One project per package; each package's own vitest.config.ts says how its tests run. The SDK's
// end-to-end tests (against the real server) and the examples are projects of their own.
export default defineConfig({
  test: {
    projects: [
      'packages/*/vitest.config.ts',
      'packages/server/vitest.isolated.config.ts',
      'packages/sdk/vitest.e2e.config.ts',
      'examples/vitest.config.ts',
    ],
  },
});
