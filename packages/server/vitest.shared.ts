import type { Plugin, UserWorkspaceConfig } from 'vitest/config';

// Resolve `@app/schemas` to its TypeScript source, as the type-checker does (tsconfig customConditions).
// The rest are Vite's defaults for server code, which setting `conditions` would otherwise drop, less
// the bundlers' `module`: Node does not know it, and it points some packages (@opentelemetry/api,
// the AWS SDK's `dist-es`) at files only a bundler can load. The other projects' configs list the same.
export const conditions = ['@app/source', 'node', 'development|production'];

/**
 * Gives every Vite environment of the project these conditions. `resolve.conditions` reaches only
 * the client environment and `ssr.resolve.conditions` only the one test files run in; Vitest loads
 * `globalSetup` files through an environment of its own (`__vitest__`), which takes neither, so
 * the database set-up, which loads the entities, and through them `@app/schemas`, would resolve
 * the package to its `dist` (absent from a fresh clone, stale after a change).
 */
export function sourceConditions(): Plugin {
  return {
    name: 'app:source-conditions',
    configEnvironment(_name, options) {
      options.resolve ??= {};
      options.resolve.conditions = conditions;
    },
  };
}

/** What every test project of the server shares: source resolution, the database set-up, timeouts. */
export const serverProject = {
  plugins: [sourceConditions()],
  test: {
    globalSetup: ['test/global-setup.ts'],
    hookTimeout: 60_000,
    testTimeout: 30_000,
  },
} satisfies UserWorkspaceConfig;

/**
 * Test files that replace modules (`vi.mock`) or patch them as they load (OpenTelemetry's `pg`
 * instrumentation): they need a module graph of their own.
 */
export const mockingFiles = [
  'src/modules/collabs/website-prefill.ssrf.test.ts',
  'test/tracing.test.ts',
  'test/start-failure.test.ts',
];

/**
 * Test files that never read the database under test: the CLI suite and the open-files suite run
 * the server in processes of their own on embedded PGlite (the zero-set-up path; `pglite://memory`),
 * the rest have no database (a bare Fastify with one plugin, the brief renderer, the OpenAPI
 * document, the settings, the package's files). The PostgreSQL run (TEST_DATABASE_URL set) leaves
 * them out: they would run exactly as in the default run.
 */
export const databaseIndependentFiles = [
  'test/cli.test.ts',
  'test/open-files.test.ts',
  'test/package-contents.test.ts',
  'test/config.test.ts',
  'test/openapi-clients.test.ts',
  'test/openapi-committed.test.ts',
  'test/openapi-document.test.ts',
  'test/overload-start.test.ts',
  'test/overload-slots.test.ts',
  'test/responses-sending.test.ts',
  'src/modules/briefs/brief.test.ts',
  'src/modules/collabs/public-address.test.ts',
];

/**
 * Test files of what only PostgreSQL has: a Unix socket and TLS settings in `DATABASE_URL`, and
 * sessions a pooler can mix up (PGlite has one). The default run (embedded PGlite) leaves them
 * out, as the PostgreSQL run leaves out the files above; they run when TEST_DATABASE_URL is set.
 */
export const postgresOnlyFiles = ['test/postgres-socket.test.ts', 'test/pooler-statements.test.ts'];
