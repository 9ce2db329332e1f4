/**
 * A `databaseUrl` (or `MARKETPLACE_TEST_DATABASE_URL`) that cannot be right is refused before the
 * server is loaded: a wrong setting is said at once, not after a second of importing the server's
 * modules. Seen from a process of its own, whose module hooks say whether `@app/server` was loaded.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect, it } from 'vitest';

/** Starts the kit once per URL (empty: none given) in a new process: the lines it printed, then whether the server was loaded. */
async function startWith(urls: string[], env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const script = `import { registerHooks } from 'node:module';
let serverLoaded = false;
registerHooks({
  resolve(specifier, context, next) {
    // The server itself; '@app/server/node-version' (the kit's Node.js check) is a module of its own.
    if (specifier === '@app/server') serverLoaded = true;
    return next(specifier, context);
  },
});
const { startTestServer } = await import('@app/testing');
for (const databaseUrl of ${JSON.stringify(urls)}) {
  await startTestServer({ databaseUrl: databaseUrl || undefined }).then(
    (server) => { console.log('started'); return server.close(); },
    (error) => console.log('rejected: ' + error.message),
  );
}
console.log('server loaded: ' + serverLoaded);`;
  const child = spawn(
    process.execPath,
    ['--conditions=@app/source', '--import', 'tsx', '--input-type=module', '-e', script],
    {
      cwd: new URL('..', import.meta.url).pathname,
      env: { ...process.env, MARKETPLACE_TEST_DATABASE_URL: '', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  await once(child, 'close');
  return stdout.trim().split('\n');
}

it('a URL of another kind, one that is no URL, or one the server would refuse (no database): refused in one line before the server is loaded', async () => {
  const forms =
    '(postgres://user:password@host:5432/database, or through a Unix socket postgres://user@/database?host=/var/run/postgresql)';
  expect(
    await startWith([
      'mysql://app:secret@db.example.com/app',
      'postgres://app:secret@db.example.com:99999/app',
      'postgres://app:secret@db.example.com:5432',
      'postgres://app@/?host=/var/run/postgresql',
    ]),
  ).toEqual([
    'rejected: databaseUrl must be a postgres:// URL or pglite://memory, not a mysql: URL',
    `rejected: databaseUrl is not a URL ${forms}`,
    `rejected: databaseUrl names no database ${forms}`,
    `rejected: databaseUrl names no database ${forms}`,
    'server loaded: false',
  ]);
});

it('MARKETPLACE_TEST_DATABASE_URL of another kind: refused naming the variable, before the server is loaded', async () => {
  expect(await startWith([''], { MARKETPLACE_TEST_DATABASE_URL: 'sqlite:///tmp/app.db' })).toEqual([
    'rejected: MARKETPLACE_TEST_DATABASE_URL must be a postgres:// URL or pglite://memory, not a sqlite: URL',
    'server loaded: false',
  ]);
});
