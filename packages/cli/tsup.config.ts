import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/bin.ts'],
  format: ['esm'],
  // Bundled: the workspace packages are not published (the SDK's own dependencies, ky among them,
  // come with it). zod stays a dependency.
  noExternal: ['@app/sdk', '@app/schemas', 'ky'],
  dts: { entry: 'src/index.ts' },
  // Read the workspace packages from their source, so this builds without building them first.
  esbuildOptions(options) {
    options.conditions = ['@app/source'];
  },
  sourcemap: true,
  clean: true,
  target: 'node22',
});
