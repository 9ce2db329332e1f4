import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One test file per core. Vitest's default leaves one core idle (one worker on a 2-core machine).
// It ran one more file than there are cores until issue #26: with PGlite in every worker, that
// oversubscription made the runtime crashes CI saw (a worker killed by SIGTRAP; the build's
// `# Fatal error … UnregisterWasmAllocation`) likelier. Their cause is V8's, not ours: a race in
// its bookkeeping of WebAssembly code pages when code is freed while another thread compiles
// (`Check failed: jit_page_->allocations_.erase(addr) == 1`, nodejs/node#64500, PGlite churn in
// one process is enough). What was ours is gone: the build runs no WebAssembly, the suites that
// migrated a fresh PGlite per file boot the test kit's cached snapshot, every PGlite is closed in
// its file's teardown, and no file waits for a core (README, "Run every test").
// Set through the environment because `test.maxWorkers` here is not applied to the projects below.
process.env.VITEST_MAX_WORKERS ??= String(availableParallelism());

// One project per package; each package's own vitest.config.ts says how its tests run. The SDK's
// end-to-end tests (against the real server) and the examples are projects of their own.
export default defineConfig({
  test: {
    projects: [
      'packages/*/vitest.config.ts',
      'packages/server/vitest.isolated.config.ts',
      'packages/sdk/vitest.e2e.config.ts',
      'examples/vitest.config.ts',
    ],
  },
});
