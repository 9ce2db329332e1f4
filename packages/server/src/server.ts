import { type AddressInfo, createServer } from 'node:net';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { type Config, ConfigError, configWarnings, ensureWritableDir } from './config.js';
import { checkDatabase, closeDatabase, migrate, type Orm, openDatabase } from './db/database.js';
import { ensureDemo } from './demo.js';
import { renderStoredBriefs } from './modules/briefs/brief.js';
import { loadS3Driver } from './modules/uploads/stores.js';
import type { Tracing } from './tracing.js';

export interface RunningServer {
  app: FastifyInstance;
  orm: Orm;
  url: string;
  close(): Promise<void>;
}

/**
 * Applies pending migrations, then the data upgrades that need the application (briefs stored
 * before they were rendered on write get rendered). Returns the names of the migrations applied.
 */
export async function prepareDatabase(orm: Orm): Promise<string[]> {
  const applied = await migrate(orm);
  await renderStoredBriefs(orm.em.fork());
  return applied;
}

/** A port in use or not allowed, or a host that is not there, is a set-up to fix, said in one line naming the setting. */
function listenError(error: unknown, config: Config): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${config.host}:${config.port}`;
  if (code === 'EADDRINUSE')
    return new ConfigError(`cannot listen on ${where}: the port is in use (set PORT to a free one)`);
  if (code === 'EACCES')
    return new ConfigError(`cannot listen on ${where}: permission denied (set PORT above 1023)`);
  if (code === 'EADDRNOTAVAIL')
    return new ConfigError(`cannot listen on ${where}: no such address on this machine (set HOST)`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
    return new ConfigError(`cannot listen on ${where}: no such host name (set HOST)`);
  return error;
}

/** Listens on the configured address for a moment (with `PORT=0`, on any free port of its host). */
async function checkListenable(config: Config): Promise<void> {
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen(config.port, config.host, resolve);
    });
  } catch (error) {
    throw listenError(error, config);
  } finally {
    if (probe.listening) await new Promise((resolve) => probe.close(resolve));
  }
}

/** Stops accepting connections, finishes in-flight requests, then closes the database and tracing. */
export async function shutDown(app: FastifyInstance, orm: Orm, tracing?: Tracing): Promise<void> {
  await app.close();
  await closeDatabase(orm);
  await tracing?.shutdown();
}

/**
 * Opens the database, applies pending migrations, and listens. With `demo`, an empty database
 * gets a demo user and organization first, and the token and a working `curl` line are printed.
 */
export async function startServer(
  config: Config,
  options: { demo?: boolean; handleSignals?: boolean; tracing?: Tracing } = {},
) {
  const { tracing } = options;
  // A port in use (or a host that is not there), and an upload store that cannot be used, are
  // found before the database is opened and migrated: a replica started with a wrong PORT, or
  // without the S3 package its store needs, must not apply a release's migrations first.
  await checkListenable(config);
  if (config.storage.driver === 'directory')
    ensureWritableDir(config.dataDir, config.storage.dir, 'the uploads');
  else await loadS3Driver();
  // PostgreSQL's statements are traced by the pg instrumentation; PGlite's from MikroORM's reports.
  const pglite = !config.databaseUrl?.startsWith('postgres');
  const orm = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    ...(tracing && pglite && { onQuery: tracing.statementSpan }),
    poolSize: config.databasePoolSize,
    pooler: config.databasePooler,
  });
  // Migrate before building the app: start-up work must not count as event-loop delay for the
  // overload protection, or the first requests would get 503s.
  let applied: string[];
  try {
    await checkDatabase(orm, config.databaseUrl);
    applied = await prepareDatabase(orm);
  } catch (error) {
    await orm.close(true);
    throw error;
  }
  // A set-up error found while the app is built (an s3:// store that cannot be made) closes the
  // database again: a PostgreSQL pool's connections kept the process alive after its one line.
  const app = await buildApp({ config, orm, ...(tracing && { tracing }) }).catch(async (error: unknown) => {
    await orm.close(true);
    throw error;
  });
  try {
    if (applied.length > 0) app.log.info({ migrations: applied }, 'applied migrations');
    // One line per address it listens on (each interface's for 0.0.0.0), in the server's words.
    await app.listen({
      port: config.port,
      host: config.host,
      listenTextResolver: (address) => `listening on ${address}`,
    });
  } catch (error) {
    await app.close();
    await orm.close(true);
    throw listenError(error, config);
  }
  const { port } = app.server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  for (const warning of configWarnings(config)) app.log.warn(warning);

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= shutDown(app, orm, tracing);
    return closing;
  };
  if (options.handleSignals) {
    closeWithGrace(
      { delay: 10_000, logger: { error: (m: unknown) => app.log.error(m) } },
      async ({ signal, err }) => {
        if (err) app.log.error({ err }, 'shutting down after an error');
        else app.log.info({ signal }, 'shutting down');
        await close();
      },
    );
  }
  if (options.demo) await ensureDemo(app, orm, config, config.port === 0 ? url : config.baseUrl);
  return { app, orm, url, close } satisfies RunningServer;
}
