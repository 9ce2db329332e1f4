/**
 * The reference server, seeded, in a process of its own, for a bench in another package (the SDK's,
 * `packages/sdk/bench/sdk.ts`): the built `dist/cli.js serve` on a fresh PostgreSQL database
 * (`BENCH_DATABASE_URL`, default the local one), a user, an organization and its
 * {@link SMALL_LIST} collabs made through the API (launch.ts's `seed`). Prints one line,
 * `seeded <JSON>` (the server's URL, the token, the organization's id), and on SIGTERM or SIGINT
 * stops the server and drops the database.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshDatabase, HELPERS_KEY, SMALL_LIST, seed, start } from './launch.js';

const here = dirname(fileURLToPath(import.meta.url));
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const serverCli = process.env.BENCH_SERVER ?? join(here, '..', 'dist', 'cli.js');

const database = await freshDatabase(databaseUrl, 'bench_sdk');
const server = await start(
  [serverCli, 'serve'],
  { DATABASE_URL: database.url, MARKETPLACE_TEST_HELPERS_KEY: HELPERS_KEY, LOG_LEVEL: 'warn' },
  '/health',
).catch(async (error: unknown) => {
  await database.drop();
  throw error;
});
const stop = async () => {
  await server.stop();
  await database.drop();
};
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => stop().then(() => process.exit(0)));
const data = await seed(server.url).catch(async (error: unknown) => {
  await stop();
  throw error;
});
const organizationId = data.showPath.split('/')[2]?.replace(/\.json$/, '');
process.stdout.write(
  `seeded ${JSON.stringify({ url: server.url, token: data.token, organizationId, collabs: SMALL_LIST })}\n`,
);
