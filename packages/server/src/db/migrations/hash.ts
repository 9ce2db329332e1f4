import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Set by the build (tsup.config.ts): the hash of the migrations' source files it bundled. */
declare const __MIGRATIONS_HASH__: string | undefined;

/**
 * 16 hex digits of a SHA-256 over the migrations' source files, their names and text: the name of
 * what the test kit (`@app/testing`) keeps them migrated in, its PGlite snapshot and its template
 * database on PostgreSQL, so that a server with other migrations (another version, another
 * branch, a migration being edited) never boots from it.
 *
 * The same from the TypeScript source and from the build: the build writes in the hash of the files
 * it bundled, and the source reads the same files. It was a hash of each migration class's
 * `toString()`, which differs with whatever compiled the code (Vite in the test runner, tsx, the
 * build): a kit run from tsx and one run in vitest each made a template of their own on one
 * PostgreSQL server, and each dropped the other's as an old schema, under the other's next copy.
 */
export function migrationsHash(): string {
  return typeof __MIGRATIONS_HASH__ === 'string'
    ? __MIGRATIONS_HASH__
    : hashMigrationSources(fileURLToPath(new URL('.', import.meta.url)));
}

/** The hash of the migration files (`Migration<timestamp>.ts`) of the folder `dir`. */
export function hashMigrationSources(dir: string): string {
  const hash = createHash('sha256');
  const files = readdirSync(dir)
    .filter((name) => /^Migration\d+\.ts$/.test(name))
    .sort();
  for (const name of files) hash.update(`${name}\n${readFileSync(join(dir, name), 'utf8')}\n`);
  return hash.digest('hex').slice(0, 16);
}
