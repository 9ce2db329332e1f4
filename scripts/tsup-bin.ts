/**
 * The build of a bin package (`@app/mcp`, `@app/cli`), passed to tsup's `defineConfig` by each:
 * ESM, `src/index.ts` (with declarations) and `src/bin.ts`. Bundled: the workspace packages are
 * not published (the SDK's own dependencies, ky among them, come with it); the package's
 * `dependencies` (zod, the MCP SDK) stay external.
 */
export const binBuild = {
  entry: ['src/index.ts', 'src/bin.ts'],
  format: ['esm' as const],
  noExternal: ['@app/sdk', '@app/schemas', 'ky'],
  dts: { entry: 'src/index.ts' },
  // Read the workspace packages from their source, so this builds without building them first.
  esbuildOptions(options: { conditions?: string[] }) {
    options.conditions = ['@app/source'];
  },
  sourcemap: true,
  clean: true,
  target: 'node22',
};
