/**
 * A set-up error found while the app is built (here an `s3://` store that cannot be made; a missing
 * optional package is now found before the database is opened, test/cli.test.ts) closes the
 * database `startServer` opened, and what the app's steps before it opened: on
 * PostgreSQL the pool's connections, and then the database check's connection of its own, kept
 * the process alive, so `serve` printed its one line and then neither listened nor exited.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const MISSING = 'an s3:// store needs the optional package @aws-sdk/client-s3, which is not installed';
const closed = vi.fn();
const probeClosed = vi.fn();

vi.mock('../src/modules/uploads/stores.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../src/modules/uploads/stores.js')>()),
  createUploadStore: async () => {
    throw new ConfigError(MISSING);
  },
}));
vi.mock('../src/db/database.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/db/database.js')>();
  return {
    ...real,
    openDatabase: async (...args: Parameters<typeof real.openDatabase>) => {
      const orm = await real.openDatabase(...args);
      const close = orm.close.bind(orm);
      orm.close = async (force?: boolean) => {
        closed();
        return close(force);
      };
      return orm;
    },
  };
});

vi.mock('../src/db/probe.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/db/probe.js')>();
  return {
    ...real,
    databaseProbe: (...args: Parameters<typeof real.databaseProbe>) => {
      const probe = real.databaseProbe(...args);
      return {
        ping: () => probe.ping(),
        close: async () => {
          probeClosed();
          await probe.close();
        },
      };
    },
  };
});

const dataDir = mkdtempSync(join(tmpdir(), 'mkt-start-failure-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('an error while the app is built closes the database that was opened, and the database check', async () => {
  const { startServer } = await import('../src/server.js');
  const config = loadConfig({
    DATABASE_URL: 'pglite://memory',
    PORT: '0',
    // On (its default): the check opens what it asks the database through before the store is made.
    MARKETPLACE_DATABASE_CHECK_INTERVAL_MS: '1000',
    MARKETPLACE_DATA_DIR: dataDir,
    MARKETPLACE_STORAGE_URL: 's3://bucket?endpoint=http://127.0.0.1:9&force_path_style=true',
  });
  await expect(startServer(config)).rejects.toThrow(MISSING);
  expect(closed).toHaveBeenCalledTimes(1);
  expect(probeClosed).toHaveBeenCalledTimes(1);
}, 60_000);
