import { parseArgs } from 'node:util';
import { Permission } from '@app/schemas';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { HttpError } from './http/errors.js';
import { createUserWithToken } from './modules/users/users.service.js';
import { prepareDatabase, startServer } from './server.js';
import type { Tracing } from './tracing.js';

const USAGE = `Usage: marketplace-server <command>

Commands:
  serve [--demo]                      apply pending migrations and start the server
                                      (--demo: on an empty database, create a demo user and print its token)
  migrate                             apply pending migrations and exit
  users create --name N --email E [--permission read|write]
                                      create a user and print {"user", "access_token"} as JSON

Settings come from the environment: PORT, HOST, DATABASE_URL, MARKETPLACE_DATA_DIR,
MARKETPLACE_BASE_URL, MARKETPLACE_TEST_HELPERS_KEY, MARKETPLACE_CHAOS_503_RATE, LOG_LEVEL,
LOG_FORMAT, MARKETPLACE_METRICS_TOKEN, MARKETPLACE_CORS_ORIGINS, OTEL_EXPORTER_OTLP_ENDPOINT (README).`;

async function main(argv: string[], tracing: Tracing | undefined): Promise<number> {
  const [command, ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case 'serve': {
      const { values } = parseArgs({ args: rest, options: { demo: { type: 'boolean', default: false } } });
      await startServer(config, { demo: values.demo, handleSignals: true, ...(tracing && { tracing }) });
      return -1; // keep running
    }
    case 'migrate': {
      const orm = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
      try {
        const applied = await prepareDatabase(orm);
        process.stdout.write(applied.length ? `Applied ${applied.join(', ')}\n` : 'No pending migrations\n');
      } finally {
        await orm.close(true);
      }
      return 0;
    }
    case 'users': {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: {
          name: { type: 'string' },
          email: { type: 'string' },
          permission: { type: 'string', default: 'write' },
        },
      });
      if (positionals[0] !== 'create' || !values.name || !values.email) break;
      const permission = Permission.safeParse(values.permission);
      if (!permission.success) {
        process.stderr.write('--permission must be read or write\n');
        return 2;
      }
      const orm = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
      try {
        await prepareDatabase(orm);
        const created = await createUserWithToken(
          orm.em.fork(),
          { name: values.name, email: values.email },
          {
            description: 'Created by marketplace-server users create',
            permission: permission.data,
          },
        );
        process.stdout.write(`${JSON.stringify(created)}\n`);
      } finally {
        await orm.close(true);
      }
      return 0;
    }
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
  }
  process.stderr.write(`${USAGE}\n`);
  return 2;
}

/** Runs a `marketplace-server` command; the process exit code is set when it ends. */
export function run(argv: string[], tracing: Tracing | undefined): Promise<void> {
  return main(argv, tracing).then(
    (code) => {
      if (code >= 0) process.exitCode = code;
    },
    (error: unknown) => {
      if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
      else if (error instanceof HttpError) process.stderr.write(`${JSON.stringify(error.body)}\n`);
      else
        process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
