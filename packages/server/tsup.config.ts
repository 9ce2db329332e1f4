import { defineConfig } from 'tsup';

// The server runs from this build (`pnpm start`); @app/schemas is bundled in, the rest of the
// dependencies stay external.
export default defineConfig({
  // The brief renderer's worker thread is loaded by file name, next to the bundle.
  // `testing` is the test kit (`@app/server/testing`); `build` then writes the migrated database
  // it boots from next to it (scripts/write-test-snapshot.ts).
  entry: {
    index: 'src/index.ts',
    cli: 'src/cli.ts',
    testing: 'src/testing.ts',
    'brief.worker': 'src/modules/briefs/brief.worker.ts',
  },
  format: ['esm'],
  target: 'node22',
  platform: 'node',
  sourcemap: true,
  clean: true,
  // Types for the test kit only: integrators import it; the rest is run, not imported.
  dts: { entry: { testing: 'src/testing.ts' }, resolve: ['@app/schemas'] },
  noExternal: ['@app/schemas'],
  // Read @app/schemas from its source, so the server builds without building the schemas first.
  esbuildOptions(options) {
    options.conditions = ['@app/source'];
  },
});
