import { defineConfig } from 'tsup';

// The server runs from this build (`pnpm start`); @app/schemas is bundled in, the rest of the
// dependencies stay external.
export default defineConfig({
  // The brief renderer's worker thread is loaded by file name, next to the bundle.
  // `node-version` is the check the test kit (@app/testing) runs before it loads the server.
  entry: {
    index: 'src/index.ts',
    cli: 'src/cli.ts',
    'node-version': 'src/node-version.ts',
    'brief.worker': 'src/modules/briefs/brief.worker.ts',
  },
  format: ['esm'],
  target: 'node22',
  platform: 'node',
  sourcemap: true,
  clean: true,
  // No types: the server is run, not imported, but by the test kit (@app/testing), whose types
  // name nothing of it.
  noExternal: ['@app/schemas'],
  // Read @app/schemas from its source, so the server builds without building the schemas first.
  esbuildOptions(options) {
    options.conditions = ['@app/source'];
  },
});
