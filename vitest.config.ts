import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One project per package; each package's own vitest.config.ts says how its tests run. The SDK's
// end-to-end tests (against the real server) and the examples are projects of their own.
export default defineConfig({
  test: {
    // Vitest's default leaves one core idle (one worker on a 2-core machine); the test files spend
    // much of their time waiting on databases, sockets and child processes, so run one more file
    // than there are cores (measured on 2 cores: 127 s instead of 265 s with the default).
    maxWorkers: availableParallelism() + 1,
    projects: [
      'packages/*/vitest.config.ts',
      'packages/server/vitest.isolated.config.ts',
      'packages/sdk/vitest.e2e.config.ts',
      'examples/vitest.config.ts',
    ],
  },
});
