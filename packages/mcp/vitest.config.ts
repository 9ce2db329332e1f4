import { defineProject } from 'vitest/config';

// The MCP server against the real server, started in-process by the test kit (`@app/testing`)
// through the SDK's e2e harness. `@app/source` resolves the workspace packages to their TypeScript
// source; the rest are Vite's defaults for server code, which setting `conditions` would otherwise
// drop.
// Not `module`: Node does not know it, and with it @opentelemetry/api (loaded by the server's
// metrics) and the AWS SDK resolve to builds only a bundler can load.
const conditions = ['@app/source', 'node', 'development|production'];

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: 'mcp',
    include: ['test/**/*.test.ts'],
    // The bin runs built (`dist/bin.js`, built once for the run), as users get it: a process
    // starts in a third of the time it took from the TypeScript source through tsx.
    globalSetup: ['../sdk/test/e2e/build-package.ts'],
    hookTimeout: 60_000,
    testTimeout: 30_000,
  },
});
