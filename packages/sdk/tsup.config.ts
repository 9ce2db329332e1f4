import { resolve } from 'node:path';
import { defineConfig, type Options } from 'tsup';

const errorModule = resolve(import.meta.dirname, 'src/core/error.ts');
const errorsEntry = resolve(import.meta.dirname, 'src/errors.ts');

/**
 * Each error class is defined once per format, so that `@app/sdk/errors`' classes are the very ones
 * the client and `@app/sdk/operations` throw. ESM gets that from esbuild's code splitting (shared
 * chunks); CommonJS has none (tsup's experimental one rewrites every file with sucrase), so there
 * `index.cjs` and `operations.cjs` require the error module (and `src/errors.ts`, which `src/index.ts`
 * re-exports) from `errors.cjs`, which alone holds it.
 */
const errorsOnce: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'errors-once',
  setup(build) {
    if (build.initialOptions.format !== 'cjs') return;
    build.onResolve({ filter: /(^|\/)errors?\.js$/ }, (args) => {
      if (args.kind === 'entry-point' || args.importer === errorsEntry) return undefined;
      const target = resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts');
      return target === errorModule || target === errorsEntry
        ? { path: './errors.cjs', external: true }
        : undefined;
    });
  },
};

export default defineConfig({
  entry: ['src/index.ts', 'src/operations.ts', 'src/errors.ts'],
  format: ['esm', 'cjs'],
  // Bundled: @app/schemas is not published, and ky is ESM-only (its default export does not
  // survive require() interop in the CJS build). zod stays a dependency.
  noExternal: ['@app/schemas', 'ky'],
  dts: { resolve: ['@app/schemas'] },
  // Read @app/schemas from its source, so the SDK builds without building the schemas first.
  esbuildOptions(options) {
    options.conditions = ['@app/source'];
  },
  esbuildPlugins: [errorsOnce],
  sourcemap: true,
  clean: true,
  target: 'node22',
});
