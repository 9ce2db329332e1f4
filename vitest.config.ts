import { defineConfig } from 'vitest/config';

// One project per package; each package's own vitest.config.ts says how its tests run.
export default defineConfig({
  test: {
    projects: ['packages/*/vitest.config.ts'],
  },
});
