/**
 * A set-up error found while the app is built (an `s3://` store without its optional package)
 * closes the database `startServer` opened: on PostgreSQL its pool's connections kept the process
 * alive, so `serve` printed its one line and then neither listened nor exited.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const MISSING = 'an s3:// store needs the optional package @aws-sdk/client-s3, which is not installed';
const closed = vi.fn();

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

const dataDir = mkdtempSync(join(tmpdir(), 'mkt-start-failure-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('an error while the app is built closes the database that was opened', async () => {
  const { startServer } = await import('../src/server.js');
  const config = loadConfig({
    DATABASE_URL: 'pglite://memory',
    PORT: '0',
    MARKETPLACE_DATA_DIR: dataDir,
    MARKETPLACE_STORAGE_URL: 's3://bucket?endpoint=http://127.0.0.1:9&force_path_style=true',
  });
  await expect(startServer(config)).rejects.toThrow(MISSING);
  expect(closed).toHaveBeenCalledTimes(1);
}, 60_000);
