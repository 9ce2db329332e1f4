import { defineProject } from 'vitest/config';

// The examples run as child processes against the real server (`@app/server`), in-process.
// `@app/source` resolves the workspace packages to their TypeScript source; the rest are Vite's
// defaults for server code, which setting `conditions` would otherwise drop.
const conditions = ['@app/source', 'node', 'development|production'];

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: 'examples',
    include: ['*.test.ts'],
    hookTimeout: 120_000,
    testTimeout: 60_000,
  },
});
