import { defineConfig } from 'tsup';

// The kit is run from this build by integrators; @app/server and @app/sdk stay external (the
// integrator's own installed copies: `client()` returns their `Marketplace` class). ESM and
// CommonJS, as the SDK: a CommonJS project's `require` gets the SDK's CommonJS build through the
// kit too, so `client()` is the very class (and type: `index.d.cts`) that project imports.
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  target: 'node22',
  platform: 'node',
  sourcemap: true,
  clean: true,
  dts: true,
});
