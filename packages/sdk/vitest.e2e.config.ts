import { defineProject } from 'vitest/config';

// End-to-end: the SDK against the real server, started by the test kit (`@app/testing`) on a
// loopback port.
// `@app/source` resolves the workspace packages to their TypeScript source; the rest are Vite's
// defaults for server code, which setting `conditions` would otherwise drop.
// Not `module`: Node does not know it, and with it @opentelemetry/api (loaded by the server's
// metrics) and the AWS SDK resolve to builds only a bundler can load.
const conditions = ['@app/source', 'node', 'development|production'];

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: 'sdk-e2e',
    include: ['test/e2e/**/*.test.ts'],
    // Each file boots its own server on an in-memory PGlite from the kit's cached snapshot (the
    // first file on a machine makes it: a migration, seconds of WebAssembly).
    hookTimeout: 60_000,
    testTimeout: 30_000,
  },
});
