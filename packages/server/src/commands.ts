import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { Permission, TestUserCreate } from '@app/schemas';
import { type Config, ConfigError, describeDatabase, loadConfig, parseStorageUrl } from './config.js';
import type { Orm } from './db/database.js';
import { DependencyUnavailableError, HttpError } from './http/errors.js';
import type { Tracing } from './tracing.js';

// Each command imports what it uses when it runs: the server (Fastify, MikroORM, PGlite, the AWS
// SDK) took 1.4 s of CPU to load, paid by `--help`, a usage error and `storage copy` alike.

const USAGE = `Usage: marketplace-server <command>   (--version: the server's version)

Commands:
  serve [--demo]                      apply pending migrations and start the server
                                      (--demo: on an empty database, create a demo user and print its token)
  migrate                             apply pending migrations and exit
  users create --name N --email E [--permission read|write]
                                      create a user and print {"user", "access_token"} as JSON
  storage copy --to s3://bucket[/prefix]?endpoint=…&region=…&force_path_style=true
                                      copy the uploads of MARKETPLACE_DATA_DIR/uploads to that store
                                      (only those not there yet: safe to run again)

Settings come from the environment: PORT, HOST, DATABASE_URL, MARKETPLACE_DATA_DIR,
MARKETPLACE_STORAGE_URL, MARKETPLACE_BASE_URL, MARKETPLACE_TEST_HELPERS_KEY,
MARKETPLACE_CHAOS_503_RATE, LOG_LEVEL, LOG_FORMAT, MARKETPLACE_METRICS_TOKEN,
MARKETPLACE_CORS_ORIGINS, OTEL_EXPORTER_OTLP_ENDPOINT (all of them: the package's
README.md).`;

/** Runs `work` on the configured database, which is closed again whatever `work` does. */
async function withDatabase<T>(config: Config, work: (orm: Orm) => Promise<T>): Promise<T> {
  const { checkDatabase, openDatabase } = await import('./db/database.js');
  const orm = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    pooler: config.databasePooler,
  });
  try {
    await checkDatabase(orm, config.databaseUrl);
    return await work(orm);
  } finally {
    await orm.close(true);
  }
}

/** Each command's usage line (USAGE's). */
const COMMAND_USAGE = {
  serve: 'serve [--demo]',
  migrate: 'migrate',
  users: 'users create --name N --email E [--permission read|write]',
  storage: 'storage copy --to s3://bucket[/prefix]?…',
} as const;

/** A command line the CLI cannot run: said in one line with the command's usage, exit 2. */
class UsageError extends Error {
  constructor(command: keyof typeof COMMAND_USAGE | undefined, problem: string) {
    super(
      command === undefined
        ? `marketplace-server: ${problem} (commands: ${Object.keys(COMMAND_USAGE).join(', ')}; marketplace-server --help for their usage)`
        : `marketplace-server ${command}: ${problem} (usage: marketplace-server ${COMMAND_USAGE[command]})`,
    );
  }
}

/** `parseArgs`, strict, its errors in the CLI's words. */
function parse<const O extends ParseArgsOptionsConfig>(
  command: keyof typeof COMMAND_USAGE,
  args: string[],
  options: O,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    const name = /'([^']*)'/.exec(message)?.[1] ?? '';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(command, `unknown option ${name}`);
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
      throw new UsageError(command, `unexpected argument ${name}`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new UsageError(command, message);
    throw error;
  }
}

/** Refuses a command line whose words after the command are not `expected` alone. */
function subcommand(command: keyof typeof COMMAND_USAGE, words: string[], expected: string): void {
  if (words.length === 1 && words[0] === expected) return;
  throw new UsageError(
    command,
    words.length === 0 ? `the command is missing (${expected})` : `unknown command ${words.join(' ')}`,
  );
}

/** The server's version (its package.json's, beside `src/` and `dist/` alike). */
function version(): string {
  const manifest = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  return (JSON.parse(manifest) as { version: string }).version;
}

async function main(argv: string[], tracing: Tracing | undefined): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  // `<command> --help` is help, not a usage error, and reads no setting.
  if (command !== undefined && command in COMMAND_USAGE && (rest.includes('--help') || rest.includes('-h'))) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // A command line that names no command is refused before any setting is read.
  if (command === undefined) throw new UsageError(undefined, 'a command is needed');
  if (!Object.hasOwn(COMMAND_USAGE, command)) throw new UsageError(undefined, `unknown command "${command}"`);
  const config = loadConfig();
  switch (command) {
    case 'serve': {
      const { values } = parse('serve', rest, { demo: { type: 'boolean', default: false } });
      const { startServer } = await import('./server.js');
      await startServer(config, { demo: values.demo, handleSignals: true, ...(tracing && { tracing }) });
      return -1; // keep running
    }
    case 'migrate': {
      parse('migrate', rest, {});
      const { prepareDatabase } = await import('./server.js');
      const applied = await withDatabase(config, prepareDatabase);
      const where = describeDatabase(config);
      process.stdout.write(
        applied.length
          ? `Applied ${applied.join(', ')} to ${where}\n`
          : `No pending migrations in ${where}\n`,
      );
      return 0;
    }
    case 'users': {
      const { values, positionals } = parse(
        'users',
        rest,
        {
          name: { type: 'string' },
          email: { type: 'string' },
          permission: { type: 'string', default: 'write' },
        },
        true,
      );
      subcommand('users', positionals, 'create');
      const missing = (['name', 'email'] as const).filter((option) => values[option] === undefined);
      if (missing.length > 0)
        throw new UsageError('users', `create needs ${missing.map((option) => `--${option}`).join(' and ')}`);
      const permission = Permission.safeParse(values.permission);
      if (!permission.success) throw new UsageError('users', '--permission must be read or write');
      // The checks of the test helpers' `POST /test_helpers/users.json`.
      const checked = TestUserCreate.shape.user.safeParse({ name: values.name, email: values.email });
      if (!checked.success) {
        const [issue] = checked.error.issues;
        throw new UsageError('users', `--${String(issue?.path[0] ?? 'name')} ${issue?.message}`);
      }
      const user = checked.data;
      const [{ prepareDatabase }, { createUserWithToken }] = await Promise.all([
        import('./server.js'),
        import('./modules/users/users.service.js'),
      ]);
      const created = await withDatabase(config, async (orm) => {
        await prepareDatabase(orm);
        return createUserWithToken(orm.em.fork(), user, {
          description: 'Created by marketplace-server users create',
          permission: permission.data,
        });
      });
      process.stdout.write(`${JSON.stringify(created)}\n`);
      process.stderr.write(`Created in ${describeDatabase(config)}\n`);
      return 0;
    }
    case 'storage': {
      const { values, positionals } = parse('storage', rest, { to: { type: 'string' } }, true);
      subcommand('storage', positionals, 'copy');
      if (!values.to) throw new UsageError('storage', 'copy needs --to');
      const target = parseStorageUrl(values.to);
      if (typeof target === 'string') throw new UsageError('storage', `--to ${target}`);
      const { copyUploads, createUploadStore } = await import('./modules/uploads/stores.js');
      const log = { warn: (_details: object, message: string) => void process.stderr.write(`${message}\n`) };
      const from = await createUploadStore(
        { driver: 'directory', dir: join(config.dataDir, 'uploads') },
        log,
      );
      const to = await createUploadStore(target, log);
      const { copied, present } = await copyUploads(from, to);
      process.stdout.write(
        `Copied ${copied} upload${copied === 1 ? '' : 's'} from ${from.location} to ${to.location} (${present} already there)\n`,
      );
      return 0;
    }
  }
  return 2;
}

/**
 * What the API's rules refused, in one line: each field by its option (`users create` with an
 * e-mail address in use: `--email has already been taken`), else the error's message.
 */
function refusal(error: HttpError): string {
  const body = error.body as { errors?: Record<string, string[]>; error?: unknown } | undefined;
  if (body?.errors)
    return `marketplace-server: ${Object.entries(body.errors)
      .map(([field, messages]) => `--${field.replaceAll('_', '-')} ${messages.join(', ')}`)
      .join('; ')}`;
  return `marketplace-server: ${typeof body?.error === 'string' ? body.error : error.message}`;
}

/** Runs a `marketplace-server` command; the process exit code is set when it ends. */
export function run(argv: string[], tracing: Tracing | undefined): Promise<void> {
  return main(argv, tracing).then(
    (code) => {
      if (code >= 0) process.exitCode = code;
    },
    (error: unknown) => {
      if (error instanceof UsageError) {
        process.stderr.write(`${error.message}\n`);
        process.exitCode = 2;
        return;
      }
      if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
      else if (error instanceof DependencyUnavailableError) {
        const cause = error.cause instanceof Error ? `: ${error.cause.message || error.cause.name}` : '';
        process.stderr.write(`${error.message}${cause}\n`);
      } else if (error instanceof HttpError) process.stderr.write(`${refusal(error)}\n`);
      else
        process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
