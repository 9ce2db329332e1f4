import { configDefaults, defineProject } from 'vitest/config';

// Resolve `@app/schemas` to its TypeScript source, as the type-checker does (tsconfig customConditions).
const conditions = ['@app/source'];

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: 'sdk',
    include: ['test/**/*.test.ts'],
    // The end-to-end tests against the real server are their own project: vitest.e2e.config.ts.
    exclude: [...configDefaults.exclude, 'test/e2e/**'],
  },
});
