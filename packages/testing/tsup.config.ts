import { defineConfig } from 'tsup';

// The kit is run from this build by integrators; @app/server and @app/sdk stay external (the
// integrator's own installed copies: `client()` returns their `Marketplace` class).
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  target: 'node22',
  platform: 'node',
  sourcemap: true,
  clean: true,
  dts: true,
});
