/**
 * `DATABASE_URL` as the server reads it. A module of its own, importing only the driver's parser:
 * the test kit (@app/testing, `@app/server/postgres-url`) checks its URL with it before it loads
 * the server.
 */
import type { ConnectionOptions } from 'node:tls';
import { parse } from 'pg-connection-string';

/** Where a `postgres://` URL connects: what the driver is given, the URL itself never. */
export interface PostgresTarget {
  /** A host name or address, or the directory of a Unix socket (`/var/run/postgresql`); `''`: the driver's default. */
  host: string;
  port: number;
  /** `''`: the driver's default (`PGUSER`, else the user the process runs as). */
  user: string;
  password: string;
  database: string;
  /**
   * TLS as `pg` reads `sslmode`, `sslrootcert`, `sslcert` and `sslkey` (`false`: none; unset: the
   * driver's default, none). `require` is `verify-full` in pg 8, as its parser warns.
   */
  ssl?: boolean | ConnectionOptions;
}

/** The forms of `DATABASE_URL` a PostgreSQL database is named by, for the messages that refuse one. */
export const POSTGRES_URL_FORMS =
  'postgres://user:password@host:5432/database, or through a Unix socket postgres://user@/database?host=/var/run/postgresql';

/**
 * Reads a `postgres://` URL as libpq (and `pg`'s own parser, pg-connection-string) do: a Unix
 * socket as the `host` parameter (`postgres://user@/db?host=/var/run/postgresql`, the form Cloud
 * SQL gives) or as an encoded host (`postgres://user@%2Fvar%2Frun%2Fpostgresql/db`), and the
 * `host`, `port`, `user` and `password` parameters over the URL's own parts. MikroORM reads its
 * `clientUrl` with `new URL`, which refuses the first form (`Invalid URL`) and drops the
 * parameters (a `user` parameter went unsent), so the server hands it these parts instead.
 *
 * A URL without a database name is refused (a message saying so, as a string): MikroORM threw it
 * as a stack trace, and libpq's default (the user's name) would start a server on a database no
 * one named. The TLS parameters (`sslmode`, …) are read as `pg` reads them; the others are not.
 */
export function parsePostgresUrl(url: string): PostgresTarget | string {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(url);
  } catch {
    return `is not a URL (${POSTGRES_URL_FORMS})`;
  }
  if (!parsed.database) return `names no database (${POSTGRES_URL_FORMS})`;
  const port = parsed.port ? Number(parsed.port) : 5432;
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    return `has a port that is not a number from 1 to 65535`;
  return {
    host: parsed.host ?? '',
    port,
    user: parsed.user ?? '',
    password: parsed.password ?? '',
    database: parsed.database,
    ...(parsed.ssl !== undefined && { ssl: tlsOf(parsed.ssl) }),
  };
}

/** The parser's TLS options as the driver takes them. */
function tlsOf(ssl: NonNullable<ReturnType<typeof parse>['ssl']>): boolean | ConnectionOptions {
  // `?ssl=<text>` other than 1, 0 or true: pg turns TLS on with its defaults, as `true` does.
  if (typeof ssl === 'string') return true;
  if (typeof ssl === 'boolean') return ssl;
  const { cert, ...rest } = ssl;
  return cert == null ? rest : { ...rest, cert };
}

/**
 * Where a target connects, without its credentials: `db.example.com:5432`, `[::1]:5432`, a
 * socket's directory as it is (`/var/run/postgresql:5432`).
 */
export function postgresAddress({ host, port }: Pick<PostgresTarget, 'host' | 'port'>): string {
  const name = host || 'localhost';
  return `${name.includes(':') && !name.startsWith('/') ? `[${name}]` : name}:${port}`;
}

/**
 * The target as a URL that `new URL` reads back to the same parts (a socket's directory as an
 * encoded host, no parameters): MikroORM's `clientUrl`, which it and the tests read again.
 */
export function postgresClientUrl(target: PostgresTarget): string {
  const host = target.host.startsWith('/')
    ? encodeURIComponent(target.host)
    : target.host.includes(':')
      ? `[${target.host}]`
      : target.host || 'localhost';
  const password = target.password ? `:${encodeURIComponent(target.password)}` : '';
  const credentials = target.user || password ? `${encodeURIComponent(target.user)}${password}@` : '';
  return `postgresql://${credentials}${host}:${target.port}/${encodeURIComponent(target.database)}`;
}
