/**
 * The migrated, empty PGlite database the test kit (`@app/server/testing`) boots from: a data
 * directory dump (`dumpDataDir`), made at build time next to the bundle, so a test server starts
 * from it instead of migrating a fresh database (seconds of WASM work).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from './db/database.js';
import { prepareDatabase } from './server.js';

/** File name of the dump, next to the built `testing.js`. */
export const SNAPSHOT_FILE = 'pglite-snapshot.tar';

/** A fresh in-memory PGlite with every migration applied, dumped (uncompressed tar). */
export async function createMigratedSnapshot(): Promise<Uint8Array> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mkt-snapshot-'));
  const pglite = await PGlite.create();
  try {
    const orm = await openDatabase({ url: undefined, dataDir, pglite });
    try {
      await prepareDatabase(orm);
    } finally {
      await orm.close(true);
    }
    return new Uint8Array(await (await pglite.dumpDataDir('none')).arrayBuffer());
  } finally {
    await pglite.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

let snapshot: Promise<Uint8Array> | undefined;

/**
 * The dump this process boots test servers from: the one built next to the bundle, read once;
 * without one (running from the TypeScript source), one made here on first use.
 */
export function migratedSnapshot(): Promise<Uint8Array> {
  snapshot ??= (async () => {
    try {
      return new Uint8Array(readFileSync(fileURLToPath(new URL(`./${SNAPSHOT_FILE}`, import.meta.url))));
    } catch {
      return createMigratedSnapshot();
    }
  })();
  snapshot.catch(() => {
    snapshot = undefined;
  });
  return snapshot;
}
