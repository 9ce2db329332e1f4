import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { migrate, openDatabase } from '../src/db/database.js';

/** A free loopback port, so that `MARKETPLACE_BASE_URL` (the `url` fields) is known before listening. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as { port: number };
  await new Promise((done) => probe.close(done));
  return port;
}

export interface ListeningServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

/**
 * The server as `marketplace-server serve` runs it, listening on a loopback port over a fresh
 * in-memory PGlite (for clients that need a real socket: a browser, a generated client).
 */
export async function startListeningServer(env: Record<string, string> = {}): Promise<ListeningServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mkt-listening-'));
  const config = loadConfig({
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
    DATABASE_URL: 'pglite://memory',
    MARKETPLACE_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ...env,
  });
  const orm = await openDatabase({ url: config.databaseUrl, dataDir });
  await migrate(orm);
  const app = await buildApp({ config, orm, logger: false, overload: { maxEventLoopDelay: 0 } });
  await app.listen({ port: config.port, host: config.host });
  return {
    url: config.baseUrl,
    async close() {
      await app.close();
      await orm.close(true);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
