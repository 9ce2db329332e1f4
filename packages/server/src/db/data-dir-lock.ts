import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config.js';

/** The data directories this process holds (re-entrant: a process may open its database again). */
const held = new Set<string>();

/**
 * Takes the embedded database of `dataDir` for this process, until it exits: two processes on one
 * PGlite directory (a `serve` and a `users create` beside it) each work on their own copy of its
 * pages, and the second one's writes are lost or the files corrupted. The lock is a file beside
 * the database, `pglite.lock`, holding the owner's pid; one whose owner no longer runs (a crash,
 * a `kill -9`) is taken over.
 */
export function lockDataDir(dataDir: string): void {
  const path = join(dataDir, 'pglite.lock');
  if (held.has(path)) return;
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number.parseInt(readFileSync(path, 'utf8'), 10);
      if (Number.isSafeInteger(owner) && owner > 0 && owner !== process.pid && processRunning(owner))
        throw new ConfigError(
          `the embedded database in ${dataDir} is in use by another process (pid ${owner}): stop it first, or set MARKETPLACE_DATA_DIR (or DATABASE_URL) to another one; if no such process runs, remove ${path}`,
        );
      // Its owner is gone (or is this process): the lock is stale.
      rmSync(path, { force: true });
      continue;
    }
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    held.add(path);
    process.once('exit', () => rmSync(path, { force: true }));
    return;
  }
  throw new ConfigError(`could not take the lock ${path} of the embedded database in ${dataDir}`);
}

/** Whether a process with this pid runs (one of another user's counts: it may not be signalled). */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
