/**
 * The CLI as users run it: a separate process, real sockets, real signals. Each test waits for
 * what the process prints (events), never for a fixed time.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { freePort } from '@app/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsHash } from '../src/db/migrations/hash.js';
import { createUploadStore } from '../src/modules/uploads/stores.js';
import { startRefusingPostgres } from './fixtures/fake-postgres.js';
import { startS3 } from './s3-store.js';

// The tests start the server's CLI as `pnpm start` runs it: built (tsup, as `pnpm run build` builds
// dist/, 2-4 s), once for the file, into a folder of its own beside dist/ (left as it is), where
// the bundle finds ../package.json and node_modules as dist/cli.js does (.gitignore has it). From
// the TypeScript source (tsx), each of the file's 25 processes compiled the server again: a
// second or more each.
const root = new URL('..', import.meta.url).pathname;
const built = mkdtempSync(join(root, '.test-build-'));
beforeAll(() => {
  execFileSync(join(root, 'node_modules', '.bin', 'tsup'), ['--silent', '--out-dir', built], {
    cwd: root,
    stdio: 'inherit',
  });
});
afterAll(() => rmSync(built, { recursive: true, force: true }));

// Each test runs processes of its own: the embedded database starts in each (seconds of
// WebAssembly with the cores busy), so each gets the 120 s that the CLI package's suites get, not
// the server project's 30.
const childProcesses = { timeout: 120_000 };

const dataDir = mkdtempSync(join(tmpdir(), 'mkt-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** `process.versions.node` as an older Node.js reports it, set before anything else loads. */
const pretendNode = (version: string) => [
  '--import',
  `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"${version}"})`,
];

function cli(args: string[], env: Record<string, string> = {}, nodeOptions: string[] = []): ChildProcess {
  return spawn(process.execPath, [...nodeOptions, join(built, 'cli.js'), ...args], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', MARKETPLACE_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function run(args: string[], env: Record<string, string> = {}, nodeOptions: string[] = []) {
  const child = cli(args, env, nodeOptions);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  // `close`, not `exit`: the child's last output can still be in its pipes when it has exited
  // (one of the eight processes of a test below, started at once on a busy machine, lost its stderr).
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

/** Resolves with the first stdout line that matches. */
function lineMatching(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  return new Promise((resolve, reject) => {
    lines.on('line', (line) => {
      const match = pattern.exec(line);
      if (match) resolve(match);
    });
    child.on('close', (code) => reject(new Error(`exited with ${code} before printing ${pattern}`)));
  });
}

describe('marketplace-server users create', childProcesses, () => {
  it('prints {"user", "access_token"} with the token as JSON', async () => {
    const { code, stdout, stderr } = await run(
      ['users', 'create', '--name', 'Ada', '--email', 'ada@example.com', '--permission', 'read'],
      { DATABASE_URL: 'pglite://memory' },
    );
    expect(code).toBe(0);
    expect(stderr).toBe('Created in an in-memory database\n');
    const out = JSON.parse(stdout);
    expect(out.user).toMatchObject({ name: 'Ada', email: 'ada@example.com' });
    expect(out.access_token).toMatchObject({ permission: 'read' });
    expect(out.access_token.token).toMatch(/^mkt_/);
  });

  it('refuses what it cannot run in one line with the usage, exit 2: unknown options, extra arguments, missing ones, a bad e-mail', async () => {
    const cases: [string[], string][] = [
      [
        ['serve', '--bogus'],
        'marketplace-server serve: unknown option --bogus (usage: marketplace-server serve [--demo])',
      ],
      [
        ['serve', '--demo', 'extra'],
        'marketplace-server serve: unexpected argument extra (usage: marketplace-server serve [--demo])',
      ],
      [
        ['migrate', '--database-url=postgres://x'],
        'marketplace-server migrate: unknown option --database-url (usage: marketplace-server migrate)',
      ],
      [
        ['migrate', 'extra'],
        'marketplace-server migrate: unexpected argument extra (usage: marketplace-server migrate)',
      ],
      [
        ['users', 'create', '--name', 'A'],
        'marketplace-server users: create needs --email (usage: marketplace-server users create --name N --email E [--permission read|write])',
      ],
      [
        ['users', 'create', '--name', 'A', '--email', 'a@b.co', '--bogus'],
        'marketplace-server users: unknown option --bogus (usage: marketplace-server users create --name N --email E [--permission read|write])',
      ],
      [
        ['users', 'create', '--name', 'A', '--email', 'bad'],
        'marketplace-server users: --email is not an e-mail address (usage: marketplace-server users create --name N --email E [--permission read|write])',
      ],
      [
        ['users', 'create', '--name', 'A', '--email', 'a@b.co', '--permission', 'admin'],
        'marketplace-server users: --permission must be read or write (usage: marketplace-server users create --name N --email E [--permission read|write])',
      ],
      // A word that is no command, or none: one line, not the whole usage (on stdout, for none).
      [
        ['frobnicate'],
        'marketplace-server: unknown command "frobnicate" (commands: serve, migrate, users, storage; marketplace-server --help for their usage)',
      ],
      [
        [],
        'marketplace-server: a command is needed (commands: serve, migrate, users, storage; marketplace-server --help for their usage)',
      ],
      [
        ['storage', 'copy', '--bogus'],
        'marketplace-server storage: unknown option --bogus (usage: marketplace-server storage copy --to s3://bucket[/prefix]?…)',
      ],
    ];
    const results = await Promise.all(cases.map(([args]) => run(args, { DATABASE_URL: 'pglite://memory' })));
    for (const [i, [args, message]] of cases.entries()) {
      const result = results[i] as Awaited<ReturnType<typeof run>>;
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({
        args,
        code: 2,
        stderr: `${message}\n`,
      });
    }
  });

  it("--help after a command prints the usage, exit 0, and does nothing (it was 'unknown option --help', exit 2)", async () => {
    const commands = [['serve'], ['migrate'], ['users', 'create'], ['storage', 'copy'], ['users']];
    // A setting the commands would refuse: --help reads none of them.
    const env = { DATABASE_URL: 'pglite://memory', PORT: 'not-a-port' };
    const results = await Promise.all(
      commands.flatMap((words) => [run([...words, '--help'], env), run([...words, '-h'], env)]),
    );
    for (const result of results) {
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Usage: marketplace-server <command>/);
      expect(result.stdout).toContain('users create --name N --email E');
      expect(result.stderr).toBe('');
    }
  });

  it('--version prints the version of the package', async () => {
    const { code, stdout } = await run(['--version']);
    expect(code).toBe(0);
    expect(stdout).toBe(
      `${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`,
    );
  });

  it('the build names the migrations as the source does (the test kit keeps them migrated under that name)', async () => {
    const build = (await import(pathToFileURL(join(built, 'index.js')).href)) as { migrationsHash(): string };
    expect(build.migrationsHash()).toMatch(/^[0-9a-f]{16}$/);
    expect(build.migrationsHash()).toBe(migrationsHash());
  });

  it('an e-mail address already in use: one line naming --email, exit 1 (it was the JSON of the API)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mkt-cli-email-'));
    try {
      const env = { MARKETPLACE_DATA_DIR: dir };
      const args = ['users', 'create', '--name', 'Ada', '--email', 'ada@example.com'];
      expect((await run(args, env)).code).toBe(0);
      expect(await run(args, env)).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'marketplace-server: --email has already been taken\n',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the embedded database of a data directory is one process's at a time", childProcesses, () => {
  it('users create beside a running serve is refused (its user would be lost); once serve stops, it works', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mkt-cli-lock-'));
    const env = { MARKETPLACE_DATA_DIR: dir, PORT: '0' };
    const server = cli(['serve'], env);
    const exited = new Promise<number | null>((resolve) => server.on('exit', resolve));
    try {
      const create = ['users', 'create', '--name', 'Eve', '--email', 'eve@example.com'];
      await lineMatching(server, /listening on/);
      expectOneLine(
        await run(create, env),
        new RegExp(
          `^the embedded database in ${dir} is in use by another process \\(pid ${server.pid}\\): stop it first`,
        ),
      );
      server.kill('SIGTERM');
      expect(await exited).toBe(0);
      const created = await run(create, env);
      expect(created.code, created.stderr).toBe(0);
      expect(JSON.parse(created.stdout).user).toMatchObject({ name: 'Eve' });
      // A lock left by a process that no longer runs (killed) is taken over.
      writeFileSync(join(dir, 'pglite.lock'), `${server.pid}\n`);
      const migrated = await run(['migrate'], env);
      expect(migrated.code, migrated.stderr).toBe(0);
      // It names the database it migrated.
      expect(migrated.stdout).toBe(
        `No pending migrations in the embedded database in ${join(dir, 'pglite')}\n`,
      );
    } finally {
      // A failed expectation above must not leave the server running.
      if (server.exitCode === null) server.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('marketplace-server serve --demo', childProcesses, () => {
  it('starts on embedded PGlite, prints a curl line that answers 200 with JSON, and stops cleanly on SIGTERM', async () => {
    // At `debug`, the server logs each request as it arrives (`incoming request`).
    const child = cli(['serve', '--demo'], { PORT: '0', LOG_LEVEL: 'debug' });
    let output = '';
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    const listening = lineMatching(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const curl = lineMatching(child, /curl -H "Authorization: Bearer (mkt_\S+)" (\S+)/);
    const [, origin] = await listening;
    const [, token, url] = await curl;
    expect(url?.startsWith(origin as string)).toBe(true);
    // Said once (Fastify's own "Server listening at" line is the server's, not a second one).
    expect(output.match(/listening/gi)).toEqual(['listening']);

    const res = await fetch(url as string, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status, `${await res.clone().text()}\n${output}`).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const organizations = await res.json();
    expect(organizations).toEqual([expect.objectContaining({ name: 'Demo Studio' })]);

    // An in-flight request: its body is still arriving when SIGTERM comes; it must still be answered.
    const encoder = new TextEncoder();
    let send!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        send = controller;
      },
    });
    send.enqueue(encoder.encode('{"access_token": {"description": "in flight", '));
    const arrived = lineMatching(child, /"url":"\/me\/access_tokens\.json".*"msg":"incoming request"/);
    const inFlight = fetch(`${origin}/me/access_tokens.json`, {
      method: 'POST',
      body,
      duplex: 'half',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    } as RequestInit);
    await arrived;
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const shuttingDown = lineMatching(child, /shutting down/);
    child.kill('SIGTERM');
    await shuttingDown;
    send.enqueue(encoder.encode('"permission": "read"}}'));
    send.close();
    expect((await inFlight).status).toBe(201);
    expect(await exited, output).toBe(0);
  }, 120_000);
});

/** What a set-up error must look like: exit 1, one line on stderr (no stack trace). */
function expectOneLine(result: { code: number | null; stdout: string; stderr: string }, pattern: RegExp) {
  expect(result.stderr).toMatch(pattern);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.code).toBe(1);
}

describe('set-ups that are wrong stop at once, with one line (exit 1)', childProcesses, () => {
  it('a Node.js older than 22.17: the server names the version it needs', async () => {
    for (const command of [['serve'], ['migrate'], ['--help']]) {
      expectOneLine(
        await run(command, { DATABASE_URL: 'pglite://memory' }, pretendNode('20.19.0')),
        /^marketplace-server needs Node\.js 22\.17\.0 or newer; this is Node\.js 20\.19\.0\n$/,
      );
    }
  });

  it('DATABASE_URL naming a database that does not exist: refused, never created', async () => {
    const postgres = await startRefusingPostgres();
    try {
      const url = `postgres://postgres@127.0.0.1:${postgres.port}/missing`;
      for (const command of [['migrate'], ['serve']]) {
        expectOneLine(
          await run(command, { DATABASE_URL: url, PORT: '0' }),
          new RegExp(
            `^DATABASE_URL names database "missing", which does not exist on 127\\.0\\.0\\.1:${postgres.port}: create it first`,
          ),
        );
      }
    } finally {
      await postgres.close();
    }
  });

  it('DATABASE_URL without a database name: refused naming it, before anything is opened (it was a stack trace)', async () => {
    const port = await freePort();
    for (const url of [`postgres://postgres@127.0.0.1:${port}/`, `postgres://postgres@127.0.0.1:${port}`]) {
      for (const command of [['migrate'], ['serve']]) {
        const result = await run(command, { DATABASE_URL: url, PORT: '0' });
        expect({ url, command, code: result.code, stderr: result.stderr }).toEqual({
          url,
          command,
          code: 1,
          stderr:
            'Invalid configuration:\n  DATABASE_URL: names no database (postgres://user:password@host:5432/database, or through a Unix socket postgres://user@/database?host=/var/run/postgresql)\n',
        });
      }
    }
  });

  it('DATABASE_URL that cannot be reached: the reason, without the password', async () => {
    const port = await freePort();
    const result = await run(['serve'], {
      DATABASE_URL: `postgres://app:s3cret@127.0.0.1:${port}/prod`,
      PORT: '0',
    });
    expectOneLine(
      result,
      new RegExp(
        `^cannot use the database of DATABASE_URL \\(127\\.0\\.0\\.1:${port}/prod\\): .*ECONNREFUSED`,
      ),
    );
    expect(result.stderr).not.toContain('s3cret');
  });

  it('an s3:// store without the optional @aws-sdk/client-s3: says what to install, and exits before the database is opened (nothing migrated)', async () => {
    // The package is installed in the checkout: the hook makes it resolve as where it is not.
    const withoutS3Client = [
      '--import',
      pathToFileURL(join(root, 'test', 'fixtures', 'without-s3-client.mjs')).href,
    ];
    const missing =
      /^an s3:\/\/ store needs the optional package @aws-sdk\/client-s3, which is not installed: npm install @aws-sdk\/client-s3@3\n$/;
    // On PostgreSQL the database check's connection was left open: test/start-failure.test.ts.
    // The embedded database of an empty data directory: a replica started without the package
    // must not apply a release's migrations first (it migrated, then stopped, as a port in use did).
    const dir = mkdtempSync(join(tmpdir(), 'mkt-cli-s3-'));
    try {
      expectOneLine(
        await run(
          ['serve'],
          { MARKETPLACE_DATA_DIR: dir, PORT: '0', MARKETPLACE_STORAGE_URL: 's3://mybucket/prefix' },
          withoutS3Client,
        ),
        missing,
      );
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expectOneLine(
      await run(
        ['storage', 'copy', '--to', 's3://mybucket/prefix'],
        { DATABASE_URL: 'pglite://memory' },
        withoutS3Client,
      ),
      missing,
    );
  });

  it('a HOST that is not there: names it and HOST', async () => {
    expectOneLine(
      await run(['serve'], { DATABASE_URL: 'pglite://memory', PORT: '0', HOST: 'no-such-host.invalid' }),
      /^cannot listen on no-such-host\.invalid:0: no such host name \(set HOST\)\n$/,
    );
  });

  it('a MARKETPLACE_DATA_DIR that cannot hold the embedded database or the uploads: names it (a stack trace, or a server whose every upload was 503)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mkt-cli-datadir-'));
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    try {
      // Embedded PGlite on disk, and uploads in the directory beside a database elsewhere.
      const setUps: Record<string, string>[] = [{}, { DATABASE_URL: 'pglite://memory' }];
      for (const env of setUps) {
        for (const command of [['serve'], ['migrate']]) {
          if (command[0] === 'migrate' && 'DATABASE_URL' in env) continue;
          expectOneLine(
            await run(command, { ...env, MARKETPLACE_DATA_DIR: file, PORT: '0' }),
            new RegExp(
              `^MARKETPLACE_DATA_DIR \\(${file.replaceAll('.', '\\.')}\\) cannot hold (the embedded database|the uploads): .*a file is in the way`,
            ),
          );
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a port in use: names it and PORT, before the database is opened (nothing migrated)', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const dir = mkdtempSync(join(tmpdir(), 'mkt-cli-port-'));
    try {
      expectOneLine(
        await run(['serve'], { MARKETPLACE_DATA_DIR: dir, PORT: String(port) }),
        new RegExp(
          `^cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use \\(set PORT to a free one\\)\n$`,
        ),
      );
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('marketplace-server storage copy', childProcesses, () => {
  it('copies the uploads of the data directory to an S3 store, only those not there yet', async () => {
    const s3 = await startS3('copied');
    try {
      const uploads = join(dataDir, 'uploads');
      mkdirSync(uploads, { recursive: true });
      const png = () => Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(200)]);
      const files = new Map<string, Buffer>();
      const add = () => {
        const name = `${randomBytes(24).toString('base64url')}.png`;
        const data = png();
        writeFileSync(join(uploads, name), data);
        files.set(name, data);
      };
      add();
      add();
      writeFileSync(join(uploads, 'notes.txt'), 'not an upload');

      const first = await run(['storage', 'copy', '--to', s3.url]);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toBe(
        `Copied 2 uploads from ${uploads} to s3://uploads/copied (0 already there)\n`,
      );
      const again = await run(['storage', 'copy', '--to', s3.url]);
      expect(again.stdout).toBe(
        `Copied 0 uploads from ${uploads} to s3://uploads/copied (2 already there)\n`,
      );
      add();
      const more = await run(['storage', 'copy', '--to', s3.url]);
      expect(more.stdout).toBe(`Copied 1 upload from ${uploads} to s3://uploads/copied (2 already there)\n`);

      const store = await createUploadStore(s3.location, { warn: () => {} });
      expect(await store.list()).toEqual([...files.keys()].sort());
      for (const [name, data] of files) {
        const stored = await store.read(name);
        expect(Buffer.concat((await stored?.body.toArray()) ?? []).equals(data)).toBe(true);
        expect(stored?.type).toBe('image/png');
      }
    } finally {
      await s3.remove();
    }
  });

  it('refuses a target that is not an s3:// URL (exit 2), and says when the store cannot be reached (exit 1)', async () => {
    const bad = await run(['storage', 'copy', '--to', '/some/dir']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--to must be an s3://bucket[/prefix] URL');
    const s3 = await startS3();
    await s3.remove();
    const down = await run(['storage', 'copy', '--to', s3.url]);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^upload store unavailable: could not list the uploads/);
  });
});
