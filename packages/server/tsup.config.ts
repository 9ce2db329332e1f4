import { defineConfig } from 'tsup';

// The server runs from this build (`pnpm start`); @app/schemas is bundled in, the rest of the
// dependencies stay external.
export default defineConfig({
  entry: ['src/index.ts', 'src/cli.ts'],
  format: ['esm'],
  target: 'node22',
  platform: 'node',
  sourcemap: true,
  clean: true,
  dts: false,
  noExternal: ['@app/schemas'],
  // Read @app/schemas from its source, so the server builds without building the schemas first.
  esbuildOptions(options) {
    options.conditions = ['@app/source'];
  },
});
