/**
 * The kit's choice of database (`databaseUrl`, `MARKETPLACE_TEST_DATABASE_URL`) and the checks a
 * URL can be given without the network: loaded with the kit, not with the server, so that a URL that
 * cannot be right is refused before the server's modules are imported (a second or more). A
 * `postgres://` URL is read by the server's own reading of its `DATABASE_URL` (libpq's forms, a Unix
 * socket's among them), `@app/server/postgres-url`, a module of its own that the kit loads first, as
 * it loads the Node.js check. Whether a PostgreSQL server answers is only known through its driver,
 * after the server is loaded (postgres.ts).
 */
import type { PostgresTarget, parsePostgresUrl } from '@app/server/postgres-url';
import type { TestServerOptions } from './index.js';

/** Puts every kit not given a `databaseUrl` on that PostgreSQL server (README, "On PostgreSQL"). */
export const DATABASE_URL_VARIABLE = 'MARKETPLACE_TEST_DATABASE_URL';

/** The database a kit is to use, and the setting it came from (named in its errors). */
export interface ChosenDatabase {
  url: string;
  setting: string;
  /** A `postgres://` URL's parts, as the server reads them; none for `pglite://memory`. */
  postgres?: PostgresTarget;
}

/**
 * The database the options ask for, and the setting that asked; throws one line, without the
 * value (it may hold a password), when it cannot be right: another scheme, or a URL the server
 * would refuse as its `DATABASE_URL` (`parse`, the server's reading: no URL, no database, a port
 * out of range), said as the server says it.
 */
export function chooseDatabase(options: TestServerOptions, parse: typeof parsePostgresUrl): ChosenDatabase {
  const fromEnv = process.env[DATABASE_URL_VARIABLE];
  const chosen = options.databaseUrl
    ? { url: options.databaseUrl, setting: 'databaseUrl' }
    : fromEnv
      ? { url: fromEnv, setting: DATABASE_URL_VARIABLE }
      : { url: 'pglite://memory', setting: 'databaseUrl' };
  if (chosen.url === 'pglite://memory') return chosen;
  if (!/^postgres(ql)?:\/\//i.test(chosen.url)) {
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(chosen.url)?.[0];
    throw new Error(
      `${chosen.setting} must be a postgres:// URL or pglite://memory${scheme ? `, not a ${scheme} URL` : ''}`,
    );
  }
  const postgres = parse(chosen.url);
  if (typeof postgres === 'string') throw new Error(`${chosen.setting} ${postgres}`);
  return { ...chosen, postgres };
}

/**
 * `url` naming the database `name` instead, every other character kept as it was written: the
 * user, the host (a socket's directory as an encoded host), the port, and the parameters (`host`,
 * `user`, `sslmode`, …). Only the path between the authority and the parameters is replaced; the
 * authority ends, as `new URL` and so the server's reading end it, at the first `/`, `?` or `#`.
 */
export function withDatabase(url: string, name: string): string {
  const scheme = /^postgres(ql)?:\/\//i.exec(url)?.[0] ?? '';
  const rest = url.slice(scheme.length);
  const pathStart = rest.search(/[/?#]|$/);
  const tail = rest.slice(pathStart);
  const paramsStart = tail.search(/[?#]|$/);
  return `${scheme}${rest.slice(0, pathStart)}/${name}${tail.slice(paramsStart)}`;
}
