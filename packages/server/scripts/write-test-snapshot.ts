/**
 * Writes the migrated PGlite dump the test kit boots from (`dist/pglite-snapshot.tar`, next to
 * `testing.js`); part of `build`, after tsup.
 */
import { writeFileSync } from 'node:fs';
import { createMigratedSnapshot, SNAPSHOT_FILE } from '../src/test-snapshot.js';

const started = performance.now();
const dump = await createMigratedSnapshot();
const file = new URL(`../dist/${SNAPSHOT_FILE}`, import.meta.url);
writeFileSync(file, dump);
console.log(
  `wrote dist/${SNAPSHOT_FILE} (${(dump.byteLength / 1024 / 1024).toFixed(1)} MiB) in ${Math.round(performance.now() - started)} ms`,
);
