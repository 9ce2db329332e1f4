import { defineConfig } from 'vitest/config';

// One project per package; each package's own vitest.config.ts says how its tests run. The SDK's
// end-to-end tests (against the real server) and the examples are projects of their own.
export default defineConfig({
  test: {
    projects: [
      'packages/*/vitest.config.ts',
      'packages/sdk/vitest.e2e.config.ts',
      'examples/vitest.config.ts',
    ],
  },
});
