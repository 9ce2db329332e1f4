import { defineProject } from 'vitest/config';

// Resolve `@app/schemas` to its TypeScript source, as the type-checker does (tsconfig customConditions).
const conditions = ['@app/source'];

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: 'sdk',
    include: ['test/**/*.test.ts'],
  },
});
