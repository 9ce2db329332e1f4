/**
 * The kit's choice of database (`databaseUrl`, `MARKETPLACE_TEST_DATABASE_URL`) and the checks a
 * URL can be given without the network: loaded with the kit, not with the server, so that a URL that
 * cannot be right is refused before the server's modules are imported (a second or more). Whether
 * a PostgreSQL server answers is only known through its driver, after that import (postgres.ts).
 */
import type { TestServerOptions } from './index.js';

/** Puts every kit not given a `databaseUrl` on that PostgreSQL server (README, "On PostgreSQL"). */
export const DATABASE_URL_VARIABLE = 'MARKETPLACE_TEST_DATABASE_URL';

/** The database a kit is to use, and the setting it came from (named in its errors). */
export interface ChosenDatabase {
  url: string;
  setting: string;
}

/** `postgres://` and `postgresql://`, the schemes `pg` reads. */
export const isPostgresUrl = (url: string) => /^postgres(ql)?:\/\//i.test(url);

/**
 * The database the options ask for, and the setting that asked; throws one line, without the
 * value (it may hold a password), when it cannot be right: another scheme, no URL, or a `%` that
 * is no escape.
 */
export function chooseDatabase(options: TestServerOptions): ChosenDatabase {
  const fromEnv = process.env[DATABASE_URL_VARIABLE];
  const chosen = options.databaseUrl
    ? { url: options.databaseUrl, setting: 'databaseUrl' }
    : fromEnv
      ? { url: fromEnv, setting: DATABASE_URL_VARIABLE }
      : { url: 'pglite://memory', setting: 'databaseUrl' };
  if (chosen.url === 'pglite://memory') return chosen;
  if (!isPostgresUrl(chosen.url)) {
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(chosen.url)?.[0];
    throw new Error(
      `${chosen.setting} must be a postgres:// URL or pglite://memory${scheme ? `, not a ${scheme} URL` : ''}`,
    );
  }
  parsePostgresUrl(chosen.url, chosen.setting);
  return chosen;
}

/**
 * A `postgres://` URL parsed, its user, password and database known to decode as `pg` and the ORM
 * decode them: a `%` that is no escape (a password's) was `URIError: URI malformed` from deep
 * inside, or a database made and dropped again.
 */
export function parsePostgresUrl(url: string, setting: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${setting} is not a URL: give postgres://user:password@host:port/database`);
  }
  try {
    for (const part of [parsed.username, parsed.password, parsed.pathname]) decodeURIComponent(part);
  } catch {
    throw new Error(
      `${setting} has a % that is not followed by two hex digits (in its user, password or database): write a % there as %25`,
    );
  }
  return parsed;
}
