import { defineProject } from 'vitest/config';

// The kit against the real server, resolved to the workspace's TypeScript sources (`@app/source`);
// the rest are Vite's defaults for server code, which setting `conditions` would otherwise drop.
// Not `module`: Node does not know it, and with it @opentelemetry/api (loaded by the server's
// metrics) and the AWS SDK resolve to builds only a bundler can load.
const conditions = ['@app/source', 'node', 'development|production'];

// The run on PostgreSQL (TEST_DATABASE_URL, CI's tests:postgres) puts every kit of these suites
// on it through the variable integrators set (MARKETPLACE_TEST_DATABASE_URL); test/postgres.test.ts
// defines what only PostgreSQL can show in that run.
const postgres = process.env.TEST_DATABASE_URL;

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: 'testing',
    include: ['test/**/*.test.ts'],
    // The snapshot suite runs its servers on PGlite in both runs (the snapshot is PGlite's): the
    // run on PostgreSQL leaves it out, as the server's leaves out its database-independent files.
    ...(postgres && {
      env: { MARKETPLACE_TEST_DATABASE_URL: postgres },
      exclude: ['test/snapshot.test.ts'],
    }),
    // A first start in a process imports the whole server, and the snapshot tests migrate a fresh
    // database (seconds of WebAssembly work: 6 s of CPU). Here that work is in the tests' bodies,
    // not only in hooks, so a test gets what a hook gets: on a machine loaded five-fold by other
    // work (load average 10 on 2 cores) the snapshot's first start took 30 s and hit the 30 s
    // the tests had. A bound for a hang, not a measure of speed.
    hookTimeout: 60_000,
    testTimeout: 60_000,
  },
});
