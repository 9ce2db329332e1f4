/**
 * The migrated, empty PGlite database the kit boots from: a data-directory dump (`dumpDataDir`),
 * made on first use and kept in a cache directory, so that a test server starts from it instead of
 * migrating a fresh database (seconds of WebAssembly work). Nothing of it is made at build time.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { migrate, migrationsHash, openDatabase } from '@app/server';
import { PGlite } from '@electric-sql/pglite';

/**
 * Where the dumps are kept: `MARKETPLACE_TEST_CACHE_DIR` when set, else
 * `node_modules/.cache/app-testing` of the nearest `node_modules` above the working directory (as
 * other tools keep their caches), else a folder under the OS's temporary directory.
 */
export function cacheDir(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  if (env.MARKETPLACE_TEST_CACHE_DIR) return env.MARKETPLACE_TEST_CACHE_DIR;
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules'))) return join(dir, 'node_modules', '.cache', 'app-testing');
    if (dirname(dir) === dir) return join(tmpdir(), 'app-testing-cache');
  }
}

/**
 * The dump's file name: it names the migrations it holds (`migrationsHash` of `@app/server`), so a
 * server with other migrations (another version, another branch) never boots from it.
 */
export function snapshotFile(): string {
  return `pglite-${migrationsHash()}.tar`;
}

/** A fresh in-memory PGlite with every migration applied, dumped (uncompressed tar). */
export async function createMigratedSnapshot(): Promise<Uint8Array> {
  // Named after this process, as a server's folder is: one killed while it migrates (seconds) leaves
  // it, and the next start removes it (server.ts, `removeLeftoverDataDirs`).
  const dataDir = mkdtempSync(join(tmpdir(), `mkt-snapshot-${process.pid}-`));
  const pglite = await PGlite.create();
  try {
    const orm = await openDatabase({ url: undefined, dataDir, pglite });
    try {
      await migrate(orm);
    } finally {
      await orm.close(true);
    }
    return new Uint8Array(await (await pglite.dumpDataDir('none')).arrayBuffer());
  } finally {
    await pglite.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Writes `bytes` as `file` all at once: into a name of this process's own first, then renamed over
 * `file` (atomic on one file system). Test files starting in parallel processes may each make a
 * dump and write it; a reader sees one whole dump or none, never a part.
 */
export function writeAtomically(file: string, bytes: Uint8Array): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, bytes);
    renameSync(temporary, file);
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Reads the cached dump, or makes it and caches it (a cache that cannot be written is no error). */
async function cachedSnapshot(): Promise<Uint8Array> {
  const file = join(cacheDir(), snapshotFile());
  try {
    return new Uint8Array(readFileSync(file));
  } catch {
    const dump = await createMigratedSnapshot();
    try {
      writeAtomically(file, dump);
    } catch {
      // A read-only or full disk: this process keeps its dump in memory; the next one makes its own.
    }
    return dump;
  }
}

let snapshot: Promise<Uint8Array> | undefined;

/** The dump this process boots test servers from, read (or made) once. */
export function migratedSnapshot(): Promise<Uint8Array> {
  snapshot ??= cachedSnapshot();
  snapshot.catch(() => {
    snapshot = undefined;
  });
  return snapshot;
}

/**
 * Forgets a dump that PGlite could not load (a file damaged outside the kit) and removes it from
 * the cache, so that the next start makes a new one.
 */
export function discardSnapshot(): void {
  snapshot = undefined;
  rmSync(join(cacheDir(), snapshotFile()), { force: true });
}
