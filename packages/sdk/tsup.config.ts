import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/operations.ts'],
  format: ['esm', 'cjs'],
  // Bundled: @app/schemas is not published, and ky is ESM-only (its default export does not
  // survive require() interop in the CJS build). zod stays a dependency.
  noExternal: ['@app/schemas', 'ky'],
  dts: { resolve: ['@app/schemas'] },
  // Read @app/schemas from its source, so the SDK builds without building the schemas first.
  esbuildOptions(options) {
    options.conditions = ['@app/source'];
  },
  sourcemap: true,
  clean: true,
  target: 'node22',
});
