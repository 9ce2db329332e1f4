/**
 * The kit on PostgreSQL (`databaseUrl`, `MARKETPLACE_TEST_DATABASE_URL`): a database of each
 * server's own, migrated, emptied by `reset()`, dropped by `close()`, and one line for a server it
 * cannot use. What needs no PostgreSQL (the choice of database, an unreachable server) runs in
 * every run; what needs one is defined in the run on PostgreSQL (TEST_DATABASE_URL, as CI's
 * tests:postgres sets it), where every other suite of the kit runs on it too (vitest.config.ts).
 */
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Socket, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrationsHash } from '@app/server';
import { freePort, startTestServer, type TestServer } from '@app/testing';
import pg from 'pg';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';

const postgresUrl = process.env.TEST_DATABASE_URL;

afterEach(() => {
  vi.unstubAllEnvs();
});

/** `url` with another user and password, or another database. */
function withUrl(url: string, change: { user?: string; password?: string; database?: string }): string {
  const parsed = new URL(url);
  if (change.user !== undefined) parsed.username = change.user;
  if (change.password !== undefined) parsed.password = change.password;
  if (change.database !== undefined) parsed.pathname = `/${change.database}`;
  return parsed.toString();
}

/** A connection to the PostgreSQL server of `url`, ended when the test does. */
async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  onTestFinished(() => client.end());
  return client;
}

/**
 * Resolves once PostgreSQL has no backend `pid` any more: a client's end (or its process's) reaches
 * the server a moment after the client has closed its socket.
 */
async function backendGone(admin: pg.Client, pid: number): Promise<void> {
  while ((await admin.query('select 1 from pg_stat_activity where pid = $1', [pid])).rowCount) {}
}

/** The server folders of this process (`mkt-test-server-<pid>-…` in the temp folder). */
const ownFolders = () =>
  readdirSync(tmpdir()).filter((name) => name.startsWith(`mkt-test-server-${process.pid}-`));

/**
 * A TCP proxy to the PostgreSQL server of `url` on a loopback port of its own, and `url` through
 * it. `stop()` is PostgreSQL gone: no new connection, and every open one cut.
 */
async function proxyTo(url: string): Promise<{ url: string; port: number; stop(): Promise<void> }> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    const upstream = tcpConnect(Number(target.port || 5432), target.hostname);
    for (const [one, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(one);
      one.on('error', () => other.destroy());
      one.on('close', () => {
        sockets.delete(one);
        other.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as { port: number };
  const proxied = new URL(url);
  proxied.host = `127.0.0.1:${port}`;
  const stop = async () => {
    const closed = new Promise<void>((resolve) => proxy.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  onTestFinished(stop);
  return { url: proxied.toString(), port, stop };
}

const databaseOf = async (server: TestServer) =>
  ((await server.sql<{ name: string }>('select current_database() as name'))[0] as { name: string }).name;

describe('which database', () => {
  it('a URL that is neither postgres:// nor pglite://memory is refused in one line, without the URL', async () => {
    await expect(startTestServer({ databaseUrl: 'mysql://app:secret@db.example.com/app' })).rejects.toThrow(
      /^databaseUrl must be a postgres:\/\/ URL or pglite:\/\/memory, not a mysql: URL$/,
    );
  });

  it('an unreachable PostgreSQL server: one line naming databaseUrl, the host and the reason', async () => {
    const port = await freePort();
    const error = await startTestServer({
      databaseUrl: `postgres://kit:secret@127.0.0.1:${port}/postgres`,
    }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toBe(
      `databaseUrl (PostgreSQL at 127.0.0.1:${port} as kit): cannot connect: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
  });

  it('a % in the URL that is no escape (a password with a %) is read as the server and pg read it, a % of its own', async () => {
    const port = await freePort();
    for (const [credentials, user] of [
      ['k%it:secret', 'k%it'],
      ['kit:pa%ss', 'kit'],
    ]) {
      const error = await startTestServer({
        databaseUrl: `postgres://${credentials}@127.0.0.1:${port}/postgres`,
      }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message).toBe(
        `databaseUrl (PostgreSQL at 127.0.0.1:${port} as ${user}): cannot connect: connect ECONNREFUSED 127.0.0.1:${port}`,
      );
    }
  });

  it('MARKETPLACE_TEST_DATABASE_URL puts a server given no databaseUrl on PostgreSQL, and is named in its errors', async () => {
    const port = await freePort();
    vi.stubEnv('MARKETPLACE_TEST_DATABASE_URL', `postgresql://127.0.0.1:${port}/postgres`);
    await expect(startTestServer()).rejects.toThrow(
      /^MARKETPLACE_TEST_DATABASE_URL \(PostgreSQL at 127\.0\.0\.1:\d+ as [^)]+\): cannot connect: connect ECONNREFUSED/,
    );
  });

  it('databaseUrl wins over MARKETPLACE_TEST_DATABASE_URL: pglite://memory is an in-memory PGlite', async () => {
    const port = await freePort();
    vi.stubEnv('MARKETPLACE_TEST_DATABASE_URL', `postgres://127.0.0.1:${port}/postgres`);
    const server = await startTestServer({ databaseUrl: 'pglite://memory' });
    try {
      expect(await server.sql('select version() as v')).toEqual([
        { v: expect.stringContaining('emscripten') },
      ]);
    } finally {
      await server.close();
    }
  });
});

// Defined in the run on PostgreSQL only (TEST_DATABASE_URL; CI's tests:postgres).
if (postgresUrl)
  describe('on PostgreSQL', () => {
    it('two servers started at once each get a database of their own, and see none of the other’s rows', async () => {
      const [one, two] = await Promise.all([
        startTestServer({ databaseUrl: postgresUrl }),
        startTestServer({ databaseUrl: postgresUrl }),
      ]);
      onTestFinished(() => Promise.all([one.close(), two.close()]).then(() => undefined));
      const [first, second] = [await databaseOf(one), await databaseOf(two)];
      expect(first).toMatch(/^mkt_kit_\d+_[0-9a-f]{10}$/);
      expect(second).toMatch(/^mkt_kit_\d+_[0-9a-f]{10}$/);
      expect(first).not.toBe(second);
      // Migrated: every migration of the server applied.
      const migrated = await one.sql<{ n: number }>('select count(*)::int as n from mikro_orm_migrations');
      expect(migrated[0]?.n).toBeGreaterThan(0);
      expect(await two.sql('select count(*)::int as n from mikro_orm_migrations')).toEqual(migrated);

      const token = await one.createUser({ email: 'only-here@example.com' });
      await one.client(token).organizations.create({ name: 'Only here' });
      expect(await one.sql('select name from organizations')).toEqual([{ name: 'Only here' }]);
      expect(await two.sql('select count(*)::int as n from organizations')).toEqual([{ n: 0 }]);
      expect(await two.sql('select count(*)::int as n from users')).toEqual([{ n: 0 }]);
      await expect(two.client(token).organizations.list()).rejects.toMatchObject({ status: 401 });
      // The same address is free on the other one.
      await expect(two.createUser({ email: 'only-here@example.com' })).resolves.toMatch(/^mkt_/);
    });

    it('reset() empties every table of its database, and the server works on after it', async () => {
      const server = await startTestServer({ databaseUrl: postgresUrl });
      onTestFinished(() => server.close());
      const client = server.client(await server.createUser());
      const org = await client.organizations.create({ name: 'Acme' });
      await client.collabs.create(org.id, { name: 'Launch' });
      await server.reset();
      const tables = await server.sql<{ name: string }>(
        "select tablename as name from pg_tables where schemaname = current_schema() and tablename <> 'mikro_orm_migrations'",
      );
      expect(tables.length).toBeGreaterThanOrEqual(13);
      for (const { name } of tables)
        expect(await server.sql(`select count(*)::int as n from "${name}"`), name).toEqual([{ n: 0 }]);
      const after = server.client(await server.createUser());
      expect((await after.organizations.list()).data).toEqual([]);
    });

    it('sql() reads values as on PGlite: a count is a number, a timestamp a Date (a suite moved to PostgreSQL passes as it did)', async () => {
      const [lite, onPostgres] = await Promise.all([
        startTestServer({ databaseUrl: 'pglite://memory' }),
        startTestServer({ databaseUrl: postgresUrl }),
      ]);
      onTestFinished(() => Promise.all([lite.close(), onPostgres.close()]).then(() => undefined));
      const fixed = `select count(*) as n, sum(2) as total, 9007199254740993::int8 as big, array[1, 2]::int8[] as ids,
        '2020-01-01 10:00+02'::timestamptz as at, array['2020-01-01 10:00+02'::timestamptz] as ats,
        '2020-01-01'::date as day, 1.5::numeric as amount, '{"a": 1}'::jsonb as doc, true as yes, ? as text`;
      const expected = [
        {
          n: 1,
          total: 2,
          big: 9007199254740993n,
          ids: [1, 2],
          at: new Date('2020-01-01T08:00:00Z'),
          ats: [new Date('2020-01-01T08:00:00Z')],
          day: new Date('2020-01-01T00:00:00Z'),
          amount: '1.5',
          doc: { a: 1 },
          yes: true,
          text: "it's",
        },
      ];
      expect(await lite.sql(fixed, ["it's"])).toEqual(expected);
      expect(await onPostgres.sql(fixed, ["it's"])).toEqual(expected);
      const client = onPostgres.client(await onPostgres.createUser());
      const org = await client.organizations.create({ name: 'Acme' });
      expect(
        await onPostgres.sql('select count(*) as n, created_at from organizations group by created_at'),
      ).toEqual([{ n: 1, created_at: new Date(org.created_at) }]);
      // Its errors are the ORM's, as on PGlite.
      const [liteError, postgresError] = await Promise.all(
        [lite, onPostgres].map((server) =>
          server.sql('selec 1').then(
            () => undefined,
            (e: Error) => e,
          ),
        ),
      );
      expect(postgresError?.constructor).toBe(liteError?.constructor);
      expect(postgresError?.message).toMatch(/syntax error at or near "selec"/);
    });

    it('close() drops its database and closes every connection it opened', async () => {
      const server = await startTestServer({ databaseUrl: postgresUrl });
      const name = await databaseOf(server);
      const admin = await connect(postgresUrl);
      const databases = () =>
        admin.query('select datname from pg_database where datname = $1', [name]).then((r) => r.rows);
      expect(await databases()).toEqual([{ datname: name }]);
      await server.close();
      expect(await databases()).toEqual([]);
      // Nor the kit's own connection (its backend pid is in the database's name).
      const pid = Number(/^mkt_kit_(\d+)_/.exec(name)?.[1]);
      const sessions = await admin.query('select pid from pg_stat_activity where pid = $1 or datname = $2', [
        pid,
        name,
      ]);
      expect(sessions.rows).toEqual([]);
      await server.close();
    });

    it("close() when PostgreSQL is gone: removes the server's folder all the same, and rejects in one line naming the database left", async () => {
      const proxy = await proxyTo(postgresUrl);
      const user = new URL(postgresUrl).username;
      const before = ownFolders();
      const server = await startTestServer({ databaseUrl: proxy.url });
      const name = await databaseOf(server);
      const folders = ownFolders().filter((folder) => !before.includes(folder));
      expect(folders).toHaveLength(1);
      const admin = await connect(postgresUrl);
      onTestFinished(async () => {
        await admin.query(`drop database if exists "${name}" with (force)`);
      });
      await proxy.stop();
      const error = await server.close().then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message).toBe(
        `databaseUrl (PostgreSQL at 127.0.0.1:${proxy.port} as ${user}): close() could not drop the server's database ${name} (the next start on that PostgreSQL server drops it): connect ECONNREFUSED 127.0.0.1:${proxy.port}`,
      );
      // Its folder is removed all the same, not left for the next start.
      expect(folders.filter((folder) => existsSync(join(tmpdir(), folder)))).toEqual([]);
      // The database is still there, for the next start (or the test) to drop.
      const left = await admin.query('select datname from pg_database where datname = $1', [name]);
      expect(left.rows).toEqual([{ datname: name }]);
      // A second close() reports the same.
      await expect(server.close()).rejects.toThrow(error as Error);
    });

    /** The migrated template the kit copies its databases from on that server, named after the migrations. */
    const template = `mkt_kit_tpl_${migrationsHash()}`;
    const templateOid = async (admin: pg.Client) =>
      (await admin.query<{ oid: number }>('select oid::int from pg_database where datname = $1', [template]))
        .rows[0]?.oid;
    const migrationsOf = async (server: TestServer) =>
      (await server.sql<{ name: string }>('select name from mikro_orm_migrations order by name')).map(
        (r) => r.name,
      );

    it('a start copies its database from a migrated template of the server, made once (mkt_kit_tpl_<hash of the migrations>)', async () => {
      const admin = await connect(postgresUrl);
      const one = await startTestServer({ databaseUrl: postgresUrl });
      onTestFinished(() => one.close());
      const made = await templateOid(admin);
      expect(made).toBeGreaterThan(0);
      const two = await startTestServer({ databaseUrl: postgresUrl });
      onTestFinished(() => two.close());
      // The same template, not made again; nobody stays connected to it (that would stop a copy).
      expect(await templateOid(admin)).toBe(made);
      const sessions = await admin.query('select pid from pg_stat_activity where datname = $1', [template]);
      expect(sessions.rows).toEqual([]);
      // Each copy is a database of its own, with every migration of the server, and works.
      expect(await databaseOf(one)).not.toBe(await databaseOf(two));
      const applied = await migrationsOf(one);
      expect(applied.length).toBeGreaterThan(0);
      expect(await migrationsOf(two)).toEqual(applied);
      const client = two.client(await two.createUser());
      await client.organizations.create({ name: 'Acme' });
      expect(await one.sql('select count(*) as n from organizations')).toEqual([{ n: 0 }]);
    });

    it('kits starting at once with no template: each gets a migrated database, one template is made, and those of other migrations are dropped', async () => {
      const admin = await connect(postgresUrl);
      // Another schema's template (an older server's), and none of this one's (a changed schema).
      const old = 'mkt_kit_tpl_00000000deadbeef';
      onTestFinished(async () => {
        await admin.query(`drop database if exists "${old}"`);
      });
      await admin.query(`create database "${old}"`);
      await admin.query(`drop database if exists "${template}"`);
      const servers = await Promise.all([1, 2, 3].map(() => startTestServer({ databaseUrl: postgresUrl })));
      onTestFinished(() => Promise.all(servers.map((server) => server.close())).then(() => undefined));
      const names = await Promise.all(servers.map(databaseOf));
      expect(new Set(names).size).toBe(3);
      const applied = await migrationsOf(servers[0] as TestServer);
      for (const server of servers) expect(await migrationsOf(server)).toEqual(applied);
      const templates = await admin.query('select datname from pg_database where datname = any($1)', [
        [template, old],
      ]);
      expect(templates.rows).toEqual([{ datname: template }]);
    });

    it('a session connected to the template (someone looking at it): a start creates and migrates its database instead', async () => {
      const admin = await connect(postgresUrl);
      const first = await startTestServer({ databaseUrl: postgresUrl });
      await first.close();
      const made = await templateOid(admin);
      await connect(withUrl(postgresUrl, { database: template }));
      const server = await startTestServer({ databaseUrl: postgresUrl });
      onTestFinished(() => server.close());
      expect((await migrationsOf(server)).length).toBeGreaterThan(0);
      expect(await templateOid(admin)).toBe(made);
    });

    it('a start drops the databases of kits whose connection is gone, and no other database', async () => {
      const admin = await connect(postgresUrl);
      // A kit's database whose connection is gone (a killed process), and one whose connection is
      // open (a kit running elsewhere), each named after its connection's backend pid.
      const gone = new pg.Client({ connectionString: postgresUrl });
      await gone.connect();
      const alive = await connect(postgresUrl);
      const pidOf = async (client: pg.Client) =>
        (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;
      const gonePid = (await pidOf(gone)) as number;
      const goneName = `mkt_kit_${gonePid}_0123456789`;
      const aliveName = `mkt_kit_${await pidOf(alive)}_abcdef0123`;
      try {
        for (const name of [goneName, aliveName]) await admin.query(`create database "${name}"`);
        await gone.end();
        await backendGone(admin, gonePid);
        const server = await startTestServer({ databaseUrl: postgresUrl });
        await server.close();
        const left = await admin.query('select datname from pg_database where datname = any($1)', [
          [goneName, aliveName],
        ]);
        expect(left.rows).toEqual([{ datname: aliveName }]);
      } finally {
        for (const name of [goneName, aliveName]) await admin.query(`drop database if exists "${name}"`);
      }
    });

    it('a start leaves a database whose kit connection is gone but which is still in use (a kit whose own connection was cut)', async () => {
      const admin = await connect(postgresUrl);
      const cut = new pg.Client({ connectionString: postgresUrl });
      await cut.connect();
      const cutPid = (await cut.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]
        ?.pid as number;
      const name = `mkt_kit_${cutPid}_fedcba9876`;
      // The server of that kit still has a connection to its database; the kit's own is cut (an
      // idle-session timeout, a proxy's idle timeout, pg_terminate_backend).
      const inUse = new pg.Client({ connectionString: withUrl(postgresUrl, { database: name }) });
      try {
        await admin.query(`create database "${name}"`);
        await inUse.connect();
        await inUse.query('select 1');
        await cut.end();
        await backendGone(admin, cutPid);
        const server = await startTestServer({ databaseUrl: postgresUrl });
        await server.close();
        const left = await admin.query('select datname from pg_database where datname = $1', [name]);
        expect(left.rows).toEqual([{ datname: name }]);
      } finally {
        await inUse.end();
        await admin.query(`drop database if exists "${name}"`);
      }
    });

    it('credentials PostgreSQL refuses: one line naming databaseUrl and the user', async () => {
      const url = withUrl(postgresUrl, { user: 'mkt_kit_nobody', password: 'wrong-password' });
      const { host } = new URL(url);
      const error = await startTestServer({ databaseUrl: url }).then(
        () => undefined,
        (e: Error) => e,
      );
      // Trust authentication says the role is unknown; password authentication says no more.
      expect(error?.message).toMatch(
        new RegExp(
          `^databaseUrl \\(PostgreSQL at ${host} as mkt_kit_nobody\\): PostgreSQL refused the credentials: (role "mkt_kit_nobody" does not exist|password authentication failed for user "mkt_kit_nobody")$`,
        ),
      );
      expect(error?.message).not.toContain('wrong-password');
    });

    it('a user without CREATEDB: one line naming databaseUrl, the user and the grant it needs', async () => {
      const admin = await connect(postgresUrl);
      const role = `mkt_kit_test_role_${process.pid}`;
      await admin.query(`drop role if exists ${role}`);
      await admin.query(`create role ${role} login nocreatedb password 'kit-test-password'`);
      try {
        const url = withUrl(postgresUrl, { user: role, password: 'kit-test-password' });
        const { host } = new URL(url);
        await expect(startTestServer({ databaseUrl: url })).rejects.toThrow(
          new Error(
            `databaseUrl (PostgreSQL at ${host} as ${role}): user "${role}" may not create databases, and the kit makes one per server: grant it (ALTER ROLE "${role}" CREATEDB) or use a user that has it`,
          ),
        );
        // Nothing left open.
        const sessions = await admin.query(
          'select count(*)::int as n from pg_stat_activity where usename = $1',
          [role],
        );
        expect(sessions.rows).toEqual([{ n: 0 }]);
      } finally {
        await admin.query(`drop role if exists ${role}`);
      }
    });

    it('a URL naming a database that does not exist: one line saying it is only where the kit connects', async () => {
      const url = withUrl(postgresUrl, { database: 'mkt_kit_no_such_database' });
      await expect(startTestServer({ databaseUrl: url })).rejects.toThrow(
        /^databaseUrl \(PostgreSQL at [^)]+\): database "mkt_kit_no_such_database" does not exist: the URL's database is only where the kit connects/,
      );
    });
  });

/**
 * A URL in libpq's forms for a Unix socket (`postgres://user@/db?host=/var/run/postgresql`, the
 * form Cloud SQL and many CI set-ups give), which the server takes as its DATABASE_URL: the kit
 * refused it (`databaseUrl is not a URL`). Its database, the server's connections to it and the
 * kit's own all go through the socket. In the run on PostgreSQL, when its server has a socket in
 * /var/run/postgresql (one reached only over TCP, a container's, has none here).
 */
const SOCKET_DIR = '/var/run/postgresql';
const socketPort = postgresUrl ? new URL(postgresUrl).port || '5432' : '5432';
if (postgresUrl)
  describe.runIf(existsSync(join(SOCKET_DIR, `.s.PGSQL.${socketPort}`)))(
    "on PostgreSQL through a Unix socket, in libpq's forms",
    () => {
      const parsed = new URL(postgresUrl);
      const user = parsed.username;
      const database = parsed.pathname.slice(1);

      it.each([
        [
          'the host parameter, the user in the URL',
          `postgres://${user}@/${database}?host=${SOCKET_DIR}&port=${socketPort}`,
        ],
        [
          'the host and user parameters',
          `postgresql:///${database}?host=${SOCKET_DIR}&user=${user}&port=${socketPort}`,
        ],
        [
          'the directory as an encoded host',
          `postgres://${user}@${encodeURIComponent(SOCKET_DIR)}:${socketPort}/${database}`,
        ],
      ])(
        '%s: the server answers on a database of its own, reached through the socket, dropped by close()',
        async (_form, url) => {
          const admin = await connect(postgresUrl);
          const server = await startTestServer({ databaseUrl: url });
          onTestFinished(() => server.close());
          const client = server.client(await server.createUser());
          const org = await client.organizations.create({ name: 'Acme' });
          expect((await client.organizations.list()).data.map(({ id }) => id)).toEqual([org.id]);
          const name = await databaseOf(server);
          expect(name).toMatch(/^mkt_kit_\d+_[0-9a-f]{10}$/);
          // Every session on it (the server's pool and the kit's \`sql()\`) came through the socket.
          const sessions = await admin.query<{ socket: boolean }>(
            'select client_addr is null as socket from pg_stat_activity where datname = $1',
            [name],
          );
          expect(sessions.rows.length).toBeGreaterThan(0);
          expect(sessions.rows.every(({ socket }) => socket)).toBe(true);
          await server.close();
          const left = await admin.query('select datname from pg_database where datname = $1', [name]);
          expect(left.rows).toEqual([]);
        },
      );

      it('a socket URL naming a database that does not exist: one line naming the socket directory', async () => {
        await expect(
          startTestServer({
            databaseUrl: `postgres://${user}@/mkt_kit_no_such_database?host=${SOCKET_DIR}&port=${socketPort}`,
          }),
        ).rejects.toThrow(
          new Error(
            `databaseUrl (PostgreSQL at ${SOCKET_DIR}:${socketPort} as ${decodeURIComponent(user)}): database "mkt_kit_no_such_database" does not exist: the URL's database is only where the kit connects to create a database of its own; name one that exists (e.g. postgres)`,
          ),
        );
      });
    },
  );
