import { defineConfig } from 'vitest/config';

// CI-only (see test-ci/spec-sync.test.ts): run by .ci/run with MARKETPLACE_SPEC_PATH set.
export default defineConfig({
  root: import.meta.dirname,
  test: {
    name: 'schemas-ci',
    include: ['test-ci/**/*.test.ts'],
  },
});
