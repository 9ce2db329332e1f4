/**
 * `DATABASE_URL` in libpq's forms for a Unix socket (the form Cloud SQL gives): the server reaches
 * the database through the socket as psql does. `postgres://user@/db?host=/var/run/postgresql` was
 * `cannot use the database of DATABASE_URL (?/?): Invalid URL`, and a `user` parameter was not
 * sent (`no PostgreSQL user name specified in startup packet`). On PostgreSQL only
 * (TEST_DATABASE_URL; vitest.shared.ts's `postgresOnlyFiles`), when its server has a socket in
 * /var/run/postgresql.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDatabase, openDatabase } from '../src/db/database.js';

const url = process.env.TEST_DATABASE_URL;
const SOCKET_DIR = '/var/run/postgresql';
const port = url ? new URL(url).port || '5432' : '5432';
const socket = existsSync(join(SOCKET_DIR, `.s.PGSQL.${port}`));

// The socket is the local server's: a PostgreSQL reached only over TCP (a container's) has none here.
describe.runIf(socket)("DATABASE_URL through a Unix socket, in libpq's forms", () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mkt-socket-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  let user = '';
  let database = '';
  beforeAll(() => {
    const parsed = new URL(url as string);
    user = decodeURIComponent(parsed.username);
    database = decodeURIComponent(parsed.pathname.slice(1));
  });

  it.each([
    [
      'the host parameter, the user in the URL',
      (u: string, d: string) => `postgres://${u}@/${d}?host=${SOCKET_DIR}`,
    ],
    [
      'the host and user parameters',
      (u: string, d: string) => `postgres:///${d}?host=${SOCKET_DIR}&user=${u}&port=${port}`,
    ],
    [
      'the directory as an encoded host',
      (u: string, d: string) => `postgres://${u}@${encodeURIComponent(SOCKET_DIR)}:${port}/${d}`,
    ],
    [
      'the host parameter over the host of the URL',
      (u: string, d: string) => `postgres://${u}@localhost:${port}/${d}?host=${SOCKET_DIR}`,
    ],
  ])('%s: connects as that user to that database, through the socket', async (_form, form) => {
    const socketUrl = form(encodeURIComponent(user), encodeURIComponent(database));
    const orm = await openDatabase({ url: socketUrl, dataDir });
    try {
      await checkDatabase(orm, socketUrl);
      const [row] = await orm.em
        .getConnection()
        .execute<{ database: string; user: string; socket: boolean }[]>(
          'select current_database() as database, current_user as "user", inet_client_addr() is null as socket',
        );
      expect(row).toEqual({ database, user, socket: true });
    } finally {
      await orm.close(true);
    }
  });
});

/**
 * `sslmode` as `pg` reads it (its connection-string parser): the server was given the URL's parts
 * but not its parameters, so `?sslmode=require` connected without TLS, silently, to a server that
 * offers none. The machines' server has no SSL.
 */
describe('DATABASE_URL’s sslmode', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mkt-sslmode-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const withMode = (mode: string) => {
    const u = new URL(url as string);
    u.searchParams.set('sslmode', mode);
    return u.href;
  };
  const tls = async (target: string) => {
    const orm = await openDatabase({ url: target, dataDir });
    try {
      await checkDatabase(orm, target);
      const [row] = await orm.em
        .getConnection()
        .execute<{ ssl: boolean }[]>('select ssl from pg_stat_ssl where pid = pg_backend_pid()');
      return row?.ssl;
    } finally {
      await orm.close(true);
    }
  };

  it('sslmode=disable connects without TLS', async () => {
    expect(await tls(withMode('disable'))).toBe(false);
  });

  it('sslmode=verify-full to a server without SSL is refused, naming the reason (it connected without TLS)', async () => {
    await expect(tls(withMode('verify-full'))).rejects.toThrow(/does not support SSL/);
  });
});
