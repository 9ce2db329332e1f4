import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsup';
import { hashMigrationSources } from './src/db/migrations/hash.js';

// The server runs from this build (`pnpm start`); @app/schemas is bundled in, the rest of the
// dependencies stay external.
export default defineConfig({
  // The brief renderer's worker thread is loaded by file name, next to the bundle.
  // `node-version` is the check the test kit (@app/testing) runs before it loads the server, and
  // `postgres-url` the reading of DATABASE_URL it checks its own URL with then.
  entry: {
    index: 'src/index.ts',
    cli: 'src/cli.ts',
    'node-version': 'src/node-version.ts',
    'postgres-url': 'src/db/postgres-url.ts',
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
  // The migrations' hash as the source computes it from their files (src/db/migrations/hash.ts).
  define: {
    __MIGRATIONS_HASH__: JSON.stringify(
      hashMigrationSources(fileURLToPath(new URL('src/db/migrations', import.meta.url))),
    ),
  },
  // Read @app/schemas from its source, so the server builds without building the schemas first.
  esbuildOptions(options) {
    options.conditions = ['@app/source'];
  },
});
