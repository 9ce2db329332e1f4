/**
 * PgBouncer in transaction mode (`pool_mode = transaction`, as hosted PostgreSQL's poolers run),
 * started by a test from a configuration of its own in a temporary directory, in front of the
 * PostgreSQL the suite uses. Debian's `pgbouncer` (in /usr/sbin); `PGBOUNCER_PATH` overrides.
 * Not installed: {@link startPgBouncer} resolves null, and the test says so.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from '@app/testing';

const PGBOUNCER =
  process.env.PGBOUNCER_PATH ?? (existsSync('/usr/sbin/pgbouncer') ? '/usr/sbin/pgbouncer' : 'pgbouncer');

/** How a test says that PgBouncer is missing. */
export const PGBOUNCER_MISSING =
  'PgBouncer is not installed (Debian: apt-get install -y pgbouncer; or set PGBOUNCER_PATH)';

export const pgbouncerInstalled = (): boolean => !spawnSync(PGBOUNCER, ['--version']).error;

export interface PgBouncer {
  /** `url` with PgBouncer's host and port instead of PostgreSQL's. */
  urlFor(url: string): string;
  /**
   * From now on PostgreSQL cannot be reached from PgBouncer, as in a network outage: its
   * `[databases]` entry is pointed at a port nobody listens on and it re-reads its configuration
   * (resolves once it has). Its server connections made before stay until they are cut.
   */
  cutOff(): Promise<void>;
  stop(): Promise<void>;
}

const quoted = (value: string) => `"${value.replaceAll('"', '""')}"`;

/**
 * Starts PgBouncer in transaction mode in front of the server of `postgresUrl` (any database,
 * the credentials of the URL); resolves once it listens, or null when it is not installed.
 */
export async function startPgBouncer(postgresUrl: string): Promise<PgBouncer | null> {
  if (!pgbouncerInstalled()) return null;
  const target = new URL(postgresUrl);
  const user = decodeURIComponent(target.username || 'postgres');
  const password = decodeURIComponent(target.password);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'mkt-pgbouncer-'));
  // PgBouncer refuses to run as root; it then runs as `nobody`, who must read its files.
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'users.txt'), `${quoted(user)} ${quoted(password)}\n`, { mode: 0o644 });
  const configure = (host: string, postgresPort: string | number) =>
    writeFileSync(
      join(dir, 'pgbouncer.ini'),
      `[databases]
* = host=${host} port=${postgresPort}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(dir, 'users.txt')}
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
logfile =
pidfile =
`,
      { mode: 0o644 },
    );
  configure(target.hostname, target.port || 5432);
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(
    PGBOUNCER,
    [...(asRoot ? ['-u', 'nobody'] : []), join(dir, 'pgbouncer.ini')],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const tail: string[] = [];
  let reloaded: (() => void) | undefined;
  await new Promise<void>((resolve, reject) => {
    for (const stream of [child.stdout, child.stderr])
      if (stream)
        createInterface({ input: stream }).on('line', (line) => {
          tail.push(line);
          if (line.includes('listening on')) resolve();
          if (line.includes('re-reading config')) reloaded?.();
        });
    child.once('exit', (code) => reject(new Error(`pgbouncer exited (${code}):\n${tail.join('\n')}`)));
  });
  return {
    urlFor(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async cutOff() {
      // A port of this machine that nothing listens on: PgBouncer's connections are refused.
      configure('127.0.0.1', await freePort());
      const done = new Promise<void>((resolve) => {
        reloaded = resolve;
      });
      child.kill('SIGHUP');
      await done;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
