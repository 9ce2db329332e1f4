import { defineProject } from 'vitest/config';

// Resolve `@app/schemas` to its TypeScript source, as the type-checker does (tsconfig customConditions).
// The rest are Vite's defaults for server code, which setting `conditions` would otherwise drop.
const conditions = ['@app/source', 'module', 'node', 'development|production'];

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: 'server',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    hookTimeout: 60_000,
    testTimeout: 30_000,
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
});
