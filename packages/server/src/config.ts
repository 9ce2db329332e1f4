import { accessSync, constants, mkdirSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import * as z from 'zod';
import { parsePostgresUrl, postgresAddress } from './db/postgres-url.js';

/** `LOG_FORMAT`: `auto` chooses by where the log goes (see `logFormatFor` in http/logging.ts). */
export type LogFormat = 'auto' | 'json' | 'pretty';

/**
 * How much one account may create, so that no one account fills the database: organizations a
 * user owns, a user's access tokens and social accounts, an organization's collabs and campaigns,
 * and the bytes of the organization's briefs and images. Generous by default; set with `MARKETPLACE_LIMIT_*`
 * (README, docs/deploy.md).
 */
export interface Limits {
  organizations: number;
  accessTokens: number;
  socialAccounts: number;
  collabsPerOrganization: number;
  campaignsPerOrganization: number;
  /**
   * Bytes (UTF-8) of the briefs of an organization's collabs and campaigns together, Markdown and
   * rendered HTML (`MARKETPLACE_LIMIT_BRIEF_BYTES`).
   */
  briefBytesPerOrganization: number;
  /**
   * Bytes of the images an organization keeps: its logo and its collabs' and campaigns' banners
   * (`MARKETPLACE_LIMIT_UPLOAD_BYTES`).
   */
  uploadBytesPerOrganization: number;
}

export const DEFAULT_LIMITS: Limits = {
  organizations: 100,
  accessTokens: 100,
  socialAccounts: 100,
  collabsPerOrganization: 10_000,
  campaignsPerOrganization: 10_000,
  // About 450 briefs of the full 20 000 characters with their HTML, or 100 000 short ones.
  briefBytesPerOrganization: 20_000_000,
  // 200 banners at the full 5 MiB, thousands of ordinary ones; without it, the row limits allowed
  // about 100 GB of images per organization.
  uploadBytesPerOrganization: 1024 * 1024 * 1024,
};

/**
 * Where uploads are kept: a directory of this machine, or a bucket (and key prefix) of an
 * S3-compatible store, reached with the standard AWS credential chain.
 */
export type StorageLocation =
  | { driver: 'directory'; dir: string }
  | {
      driver: 's3';
      bucket: string;
      /** Key prefix without slashes at either end; '' for the bucket's root. */
      prefix: string;
      /** The store's origin (`https://…`); unset: AWS S3 itself. */
      endpoint: string | undefined;
      region: string;
      forcePathStyle: boolean;
    };

/** The server's settings (decisions.md §3), read from the environment. */
export interface Config {
  port: number;
  host: string;
  /** `postgres://…`, `pglite://memory`, or undefined for embedded PGlite in `dataDir/pglite`. */
  databaseUrl: string | undefined;
  /** Connections each server process may hold open to PostgreSQL at most. */
  databasePoolSize: number;
  /**
   * `MARKETPLACE_DATABASE_POOLER`: `transaction` when `DATABASE_URL` goes through a pooler in
   * transaction mode (PgBouncer `pool_mode = transaction` and the like): statements are sent
   * unnamed, as a statement prepared on one server connection is missing on the next
   * (docs/deploy.md, "Behind a pooler"). `none`: prepared statements, once per connection.
   */
  databasePooler: 'none' | 'transaction';
  /**
   * Milliseconds between two checks that the database answers (`select 1` on a connection of
   * its own); while the last one failed, API requests get the `503` at once. 0 turns it off.
   */
  databaseCheckIntervalMs: number;
  dataDir: string;
  /** `MARKETPLACE_STORAGE_URL`; unset: the directory `dataDir/uploads`. */
  storage: StorageLocation;
  /** Origin written into `url` fields, without a trailing slash. */
  baseUrl: string;
  /** Enables the test helpers when set. */
  testHelpersKey: string | undefined;
  /** Fraction of API requests answered with a transient 503 before any work is done. */
  chaos503Rate: number;
  logLevel: string;
  /** `json`, `pretty`, or `auto`: pretty when stdout is a terminal. */
  logFormat: LogFormat;
  maxUploadBytes: number;
  /**
   * Bytes of answered pages of versioned lists kept in memory, each until its list changes
   * (pipeline/page-cache.ts); 0 keeps none.
   */
  pageCacheBytes: number;
  /**
   * Milliseconds a client has to send a whole request (head and body); a body still arriving
   * then is answered `408` and its connection closed.
   */
  receiveTimeoutMs: number;
  /**
   * Milliseconds a client has to take a whole answer once it is handed to its connection; a
   * connection that has not taken it by then is destroyed (plugins/request-lifecycle.ts).
   */
  sendTimeoutMs: number;
  /**
   * Bytes of request bodies (JSON and multipart, files included) the server holds in memory at
   * once, across every request; a body that would go past it is answered `503`
   * (plugins/request-intake.ts).
   */
  bodyBudgetBytes: number;
  /** Milliseconds of rendering a brief may take before the brief is refused (`422`). */
  briefRenderBudgetMs: number;
  /** How much one account may create (organizations, tokens, social accounts, collabs, campaigns). */
  limits: Limits;
  /** Bearer token `GET /metrics` requires; undefined: the metrics are open (see `metricsPublic`). */
  metricsToken: string | undefined;
  /**
   * Without a token, `GET /metrics` answers loopback clients only, unless this is set
   * (`MARKETPLACE_METRICS_PUBLIC=1`: any client, e.g. a scraper on another host of a private network).
   */
  metricsPublic: boolean;
  /** Origins allowed to call the API from a browser (CORS); empty: CORS off; `*`: any origin. */
  corsOrigins: string[];
  /** Lets the collab `website` prefill fetch loopback and private addresses (tests, local demos). */
  prefillAllowPrivate: boolean;
  /**
   * Connections the server holds at once (`MARKETPLACE_MAX_CONNECTIONS`): one more is closed as
   * soon as it is accepted, or takes the newest of the address holding the most
   * (plugins/request-intake.ts). 0: no limit. Its default is {@link defaultMaxConnections}, from
   * the process's open-file limit.
   */
  maxConnections: number;
  /** The soft open-file limit the default of `maxConnections` was derived from (unset: given, or not Linux). */
  openFileLimit?: number;
  /**
   * Slots of the cap on requests in progress (64) one client may hold at once: a user (by a token
   * that has authenticated before), else an address. Past it, that client's next request is
   * `503`; 0: no share (`MARKETPLACE_MAX_IN_PROGRESS_PER_CLIENT`).
   */
  maxInProgressPerClient: number;
  /**
   * `Idempotency-Key`s kept per user (`MARKETPLACE_IDEMPOTENCY_KEYS_PER_USER`): storing one more
   * forgets that user's oldest past this many, before their 24 hours.
   */
  idempotencyKeysPerUser: number;
  /**
   * The reverse proxies in front of the server (`MARKETPLACE_TRUST_PROXY`, Fastify's `trustProxy`):
   * their addresses (or ranges), whose `X-Forwarded-For` names the client, or how many proxies
   * stand in front. Unset: the address of the connection is the client's, and the header is
   * ignored. It decides the address a client's share of the cap is counted against and the one
   * logged.
   */
  trustProxy?: readonly string[] | number;
}

/** `Idempotency-Key`s a user keeps unless told otherwise: a thousand `POST`s a day, replayable. */
export const DEFAULT_IDEMPOTENCY_KEYS_PER_USER = 1_000;

/** Half of the cap on requests in progress (64, plugins/availability.ts): two clients cannot fill it. */
export const DEFAULT_MAX_IN_PROGRESS_PER_CLIENT = 32;

/** File descriptors a server process needs besides its connections: Node's own, stdio, logs, workers. */
export const BASE_FD_RESERVE = 64;

/** Files embedded PGlite on disk may hold open (PostgreSQL's file cache closes the least recently used past it). */
export const PGLITE_FD_RESERVE = 256;

/** `maxConnections` when the open-file limit is unknown (no /proc/self/limits: not Linux). */
export const FALLBACK_MAX_CONNECTIONS = 1_000;

/** The least `maxConnections` derived from a low open-file limit (a warning says to raise it). */
export const MIN_MAX_CONNECTIONS = 16;

/** The soft `Max open files` of this process (Linux, /proc/self/limits), or undefined. */
export function openFileLimit(limits?: string): number | undefined {
  let text = limits;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return undefined;
    }
  }
  const soft = /^Max open files\s+(\d+)\s/m.exec(text)?.[1];
  return soft === undefined ? undefined : Number(soft);
}

/**
 * How many connections a process with `limit` file descriptors can hold and still open what its
 * requests need: the limit, less what the process holds besides connections (Node's own, the
 * database's: the pool and its check on PostgreSQL, the files of PGlite on disk), halved, as a
 * connection may hold a second descriptor while it is served (an upload it writes or reads, a
 * store's socket). A process past its limit cannot open a file, a database connection or even
 * `/proc/self/stat`; past this many, Node closes a new connection at once, and the ones it holds
 * keep working.
 */
export function defaultMaxConnections(
  limit: number | undefined,
  database: Pick<Config, 'databaseUrl' | 'databasePoolSize'>,
): number {
  if (limit === undefined || !Number.isSafeInteger(limit)) return FALLBACK_MAX_CONNECTIONS;
  const url = database.databaseUrl;
  const databaseFds = url?.startsWith('postgres')
    ? database.databasePoolSize + 1
    : url === 'pglite://memory'
      ? 0
      : PGLITE_FD_RESERVE;
  return Math.max(MIN_MAX_CONNECTIONS, Math.floor((limit - BASE_FD_RESERVE - databaseFds) / 2));
}

/** `*`, or an origin as browsers send it: scheme, host and port, nothing else. */
function isOrigin(value: string): boolean {
  if (value === '*') return true;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

/** The names of address ranges Fastify's `trustProxy` (proxy-addr) knows. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, a range (`10.0.0.0/8`, `fd00::/8`) or a range name of `MARKETPLACE_TRUST_PROXY`. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN;
  return bits <= (family === 4 ? 32 : 128);
}

/**
 * `MARKETPLACE_TRUST_PROXY`: a number of proxies (1–10), or a comma-separated list of the
 * proxies' addresses and ranges. Not `true`: trusting every hop would let any client name the
 * address it is counted against, so the list is what tells the proxy's entry from a client's.
 */
const trustProxySetting = z.string().transform((value, ctx) => {
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) {
    const hops = Number(trimmed);
    if (hops >= 1 && hops <= 10) return hops;
  } else {
    const entries = trimmed.split(',').map((entry) => entry.trim());
    if (entries.every(isProxyAddress)) return entries;
  }
  ctx.addIssue({
    code: 'custom',
    message:
      'must be the number of proxies in front (1-10) or a comma-separated list of their addresses or ranges (127.0.0.1,10.0.0.0/8; loopback, linklocal, uniquelocal)',
  });
  return z.NEVER;
});

/**
 * `MARKETPLACE_BASE_URL`: an http(s) origin, with a path prefix at most (`https://example.com/api`).
 * A query or a fragment would land in the middle of every `url` field (`…/?x=1/organizations/….json`),
 * and a user name or password would be copied into every one of them: each is refused, in words
 * that never repeat the value (it may hold a password).
 */
const baseUrlSetting = z.string().transform((value, ctx) => {
  const refuse = (message: string) => {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return refuse('must be an http:// or https:// URL (https://host[:port][/prefix])');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return refuse(`must be an http:// or https:// URL (not ${url.protocol.slice(0, -1)})`);
  if (url.username !== '' || url.password !== '')
    return refuse(
      'must have no user name or password (user:password@): it would be copied into every url field',
    );
  if (/[?#]/.test(value))
    return refuse('must have no query (?…) or fragment (#…): an origin, with a path prefix at most');
  return value;
});

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  // An IPv6 address may be written as in a URL, in brackets (`[::1]`): the address is what is inside.
  HOST: z
    .string()
    .min(1)
    .transform((host) =>
      /^\[[^\]]*\]$/.test(host) && isIP(host.slice(1, -1)) === 6 ? host.slice(1, -1) : host,
    )
    .default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .regex(/^(postgres(ql)?:\/\/|pglite:\/\/memory$)/, 'must be a postgres:// URL or pglite://memory')
    .superRefine((url, ctx) => {
      if (!url.startsWith('postgres')) return;
      const target = parsePostgresUrl(url);
      if (typeof target === 'string') ctx.addIssue({ code: 'custom', message: target });
    })
    .optional(),
  MARKETPLACE_DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1_000).default(10),
  MARKETPLACE_DATABASE_POOLER: z.enum(['none', 'transaction']).default('none'),
  MARKETPLACE_DATABASE_CHECK_INTERVAL_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  MARKETPLACE_DATA_DIR: z.string().min(1).default('./.data'),
  MARKETPLACE_STORAGE_URL: z.string().optional(),
  MARKETPLACE_BASE_URL: baseUrlSetting.optional(),
  MARKETPLACE_TEST_HELPERS_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  MARKETPLACE_CHAOS_503_RATE: z.coerce.number().min(0).max(1).default(0),
  MARKETPLACE_MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(5 * 1024 * 1024),
  MARKETPLACE_PAGE_CACHE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(16 * 1024 * 1024),
  MARKETPLACE_RECEIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  MARKETPLACE_SEND_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  MARKETPLACE_BODY_BUDGET_BYTES: z.coerce
    .number()
    .int()
    .min(1024 * 1024)
    .default(128 * 1024 * 1024),
  MARKETPLACE_BRIEF_RENDER_BUDGET_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
  MARKETPLACE_LIMIT_ORGANIZATIONS: z.coerce.number().int().positive().default(DEFAULT_LIMITS.organizations),
  MARKETPLACE_LIMIT_ACCESS_TOKENS: z.coerce.number().int().positive().default(DEFAULT_LIMITS.accessTokens),
  MARKETPLACE_LIMIT_SOCIAL_ACCOUNTS: z.coerce
    .number()
    .int()
    .positive()
    .default(DEFAULT_LIMITS.socialAccounts),
  MARKETPLACE_LIMIT_COLLABS: z.coerce
    .number()
    .int()
    .positive()
    .default(DEFAULT_LIMITS.collabsPerOrganization),
  MARKETPLACE_LIMIT_CAMPAIGNS: z.coerce
    .number()
    .int()
    .positive()
    .default(DEFAULT_LIMITS.campaignsPerOrganization),
  MARKETPLACE_LIMIT_BRIEF_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(DEFAULT_LIMITS.briefBytesPerOrganization),
  MARKETPLACE_LIMIT_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(DEFAULT_LIMITS.uploadBytesPerOrganization),
  MARKETPLACE_PREFILL_ALLOW_PRIVATE: z.enum(['0', '1']).default('0'),
  MARKETPLACE_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(10_000_000).optional(),
  MARKETPLACE_MAX_IN_PROGRESS_PER_CLIENT: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000)
    .default(DEFAULT_MAX_IN_PROGRESS_PER_CLIENT),
  MARKETPLACE_IDEMPOTENCY_KEYS_PER_USER: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(DEFAULT_IDEMPOTENCY_KEYS_PER_USER),
  MARKETPLACE_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  MARKETPLACE_METRICS_PUBLIC: z.enum(['0', '1']).default('0'),
  MARKETPLACE_TRUST_PROXY: trustProxySetting.optional(),
  // Each entry that is not an origin is named (the issue's path was the entry's index, `.0`).
  MARKETPLACE_CORS_ORIGINS: z
    .string()
    .transform((list, ctx) => {
      const origins = list.split(',').map((origin) => origin.trim().replace(/\/+$/, ''));
      const bad = origins.filter((origin) => !isOrigin(origin));
      if (bad.length === 0) return origins;
      ctx.addIssue({
        code: 'custom',
        message: `${bad.map((origin) => JSON.stringify(origin)).join(', ')} ${bad.length === 1 ? 'is not an origin' : 'are not origins'}: must be a comma-separated list of origins (https://host[:port]) or *`,
      });
      return z.NEVER;
    })
    .default([]),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
});

export class ConfigError extends Error {}

/**
 * Makes `dir` (inside `MARKETPLACE_DATA_DIR`, `dataDir`) when it is missing and checks that this
 * process may write there, at start: else a {@link ConfigError} that names the setting. A
 * directory that could not be made was a stack trace (embedded PGlite), or a server that
 * started and answered every upload `503` as if it were a passing fault.
 */
export function ensureWritableDir(dataDir: string, dir: string, holds: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOTDIR' || code === 'EEXIST'
        ? 'a file is in the way'
        : code === 'EACCES' || code === 'EPERM'
          ? "permission denied (in a container, a bind mount must be writable by the image's user, uid 1000)"
          : code === 'EROFS'
            ? 'a read-only file system'
            : (code ?? String(error));
    throw new ConfigError(`MARKETPLACE_DATA_DIR (${dataDir}) cannot hold ${holds}: ${dir}: ${why}`);
  }
}

const S3_PARAMETERS = new Set(['endpoint', 'region', 'force_path_style']);

/**
 * `s3://bucket[/prefix]?endpoint=…&region=…&force_path_style=true` as a location, or a message
 * saying what is wrong. The region falls back to `AWS_REGION`, `AWS_DEFAULT_REGION`, then
 * `us-east-1` (which S3-compatible stores generally accept).
 */
export function parseStorageUrl(
  value: string,
  env: NodeJS.ProcessEnv = process.env,
): StorageLocation | string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an s3://bucket[/prefix] URL';
  }
  if (url.protocol !== 's3:' || !url.hostname) return 'must be an s3://bucket[/prefix] URL';
  if (url.username || url.password || url.port || url.hash)
    return 'must not carry credentials, a port or a fragment (credentials come from the AWS environment)';
  for (const key of url.searchParams.keys())
    if (!S3_PARAMETERS.has(key))
      return `has an unknown parameter "${key}" (endpoint, region, force_path_style)`;
  const endpoint = url.searchParams.get('endpoint') ?? undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/?#]+\/?$/.test(endpoint))
    return 'endpoint must be an http(s) origin, e.g. endpoint=https://s3.example.com';
  const forcePathStyle = url.searchParams.get('force_path_style') ?? 'false';
  if (forcePathStyle !== 'true' && forcePathStyle !== 'false')
    return 'force_path_style must be true or false';
  const prefix = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, '');
  return {
    driver: 's3',
    bucket: url.hostname,
    prefix,
    endpoint: endpoint?.replace(/\/$/, ''),
    region: url.searchParams.get('region') || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    forcePathStyle: forcePathStyle === 'true',
  };
}

/**
 * What a number or a choice must be, in the words of the other settings' messages (`must be at
 * most 1`, not zod's `Too big: expected number to be <=1`); zod's own for the rest. A setting's
 * own message, where it has one, comes first.
 */
function settingMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'too_big':
      if (issue.origin !== 'number') return undefined;
      return `must be ${issue.inclusive ? 'at most' : 'less than'} ${issue.maximum}`;
    case 'too_small':
      if (issue.origin !== 'number') return undefined;
      return `must be ${issue.inclusive ? 'at least' : 'more than'} ${issue.minimum}`;
    case 'invalid_type':
      if (issue.expected === 'int') return 'must be a whole number';
      return issue.expected === 'number' ? 'must be a number' : undefined;
    case 'invalid_value':
      return `must be one of ${issue.values.join(', ')}`;
    default:
      return undefined;
  }
}

/** Reads the settings; an unusable value stops the server with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = Env.safeParse(cleaned, { error: settingMessage });
  const storageUrl = cleaned.MARKETPLACE_STORAGE_URL;
  const bucket = storageUrl === undefined ? undefined : parseStorageUrl(storageUrl, env);
  // Every unusable setting in one message, the storage URL's among them.
  const lines = parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  if (typeof bucket === 'string') lines.push(`MARKETPLACE_STORAGE_URL: ${bucket}`);
  if (!parsed.success || typeof bucket === 'string')
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  const e = parsed.data;
  const dataDir = resolve(e.MARKETPLACE_DATA_DIR);
  const storage: StorageLocation = bucket ?? { driver: 'directory', dir: join(dataDir, 'uploads') };
  const host = e.HOST;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    port: e.PORT,
    host,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.MARKETPLACE_DATABASE_POOL_SIZE,
    databasePooler: e.MARKETPLACE_DATABASE_POOLER,
    databaseCheckIntervalMs: e.MARKETPLACE_DATABASE_CHECK_INTERVAL_MS,
    dataDir,
    storage,
    baseUrl: (e.MARKETPLACE_BASE_URL ?? `http://${urlHost}:${e.PORT}`).replace(/\/+$/, ''),
    testHelpersKey: e.MARKETPLACE_TEST_HELPERS_KEY,
    chaos503Rate: e.MARKETPLACE_CHAOS_503_RATE,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    maxUploadBytes: e.MARKETPLACE_MAX_UPLOAD_BYTES,
    pageCacheBytes: e.MARKETPLACE_PAGE_CACHE_BYTES,
    receiveTimeoutMs: e.MARKETPLACE_RECEIVE_TIMEOUT_MS,
    sendTimeoutMs: e.MARKETPLACE_SEND_TIMEOUT_MS,
    bodyBudgetBytes: e.MARKETPLACE_BODY_BUDGET_BYTES,
    briefRenderBudgetMs: e.MARKETPLACE_BRIEF_RENDER_BUDGET_MS,
    limits: {
      organizations: e.MARKETPLACE_LIMIT_ORGANIZATIONS,
      accessTokens: e.MARKETPLACE_LIMIT_ACCESS_TOKENS,
      socialAccounts: e.MARKETPLACE_LIMIT_SOCIAL_ACCOUNTS,
      collabsPerOrganization: e.MARKETPLACE_LIMIT_COLLABS,
      campaignsPerOrganization: e.MARKETPLACE_LIMIT_CAMPAIGNS,
      briefBytesPerOrganization: e.MARKETPLACE_LIMIT_BRIEF_BYTES,
      uploadBytesPerOrganization: e.MARKETPLACE_LIMIT_UPLOAD_BYTES,
    },
    prefillAllowPrivate: e.MARKETPLACE_PREFILL_ALLOW_PRIVATE === '1',
    metricsToken: e.MARKETPLACE_METRICS_TOKEN,
    metricsPublic: e.MARKETPLACE_METRICS_PUBLIC === '1',
    corsOrigins: e.MARKETPLACE_CORS_ORIGINS,
    maxInProgressPerClient: e.MARKETPLACE_MAX_IN_PROGRESS_PER_CLIENT,
    idempotencyKeysPerUser: e.MARKETPLACE_IDEMPOTENCY_KEYS_PER_USER,
    ...(e.MARKETPLACE_TRUST_PROXY !== undefined && { trustProxy: e.MARKETPLACE_TRUST_PROXY }),
    ...maxConnectionsOf(e.MARKETPLACE_MAX_CONNECTIONS, {
      databaseUrl: e.DATABASE_URL,
      databasePoolSize: e.MARKETPLACE_DATABASE_POOL_SIZE,
    }),
  };
}

/** `MARKETPLACE_MAX_CONNECTIONS`, or its default from the open-file limit (said with it). */
function maxConnectionsOf(
  given: number | undefined,
  database: Pick<Config, 'databaseUrl' | 'databasePoolSize'>,
): Pick<Config, 'maxConnections' | 'openFileLimit'> {
  if (given !== undefined) return { maxConnections: given };
  const limit = openFileLimit();
  return {
    maxConnections: defaultMaxConnections(limit, database),
    ...(limit !== undefined && { openFileLimit: limit }),
  };
}

/** Host and database of a PostgreSQL URL, without its credentials. */
export function describePostgresUrl(url: string): { host: string; database: string } {
  const target = parsePostgresUrl(url);
  if (typeof target === 'string') return { host: '?', database: '?' };
  return { host: postgresAddress(target), database: target.database };
}

/**
 * The database the settings name, without credentials: `PostgreSQL 127.0.0.1:5432/app`, `the
 * embedded database in /srv/data/pglite`, `an in-memory database`.
 */
export function describeDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string {
  const url = config.databaseUrl;
  if (url?.startsWith('postgres')) {
    const { host, database } = describePostgresUrl(url);
    return `PostgreSQL ${host}/${database}`;
  }
  if (url === 'pglite://memory') return 'an in-memory database';
  return `the embedded database in ${resolve(config.dataDir, 'pglite')}`;
}

/**
 * Settings the server runs with but that a production server should not have, each said in a
 * line it logs at `warn` once it listens: the test helpers on (their key resets the database), a
 * chaos rate, and `url` fields that name an address no client can open (`HOST=0.0.0.0`, the
 * container's, without `MARKETPLACE_BASE_URL`).
 */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = [];
  if (config.testHelpersKey !== undefined)
    warnings.push(
      'the test helpers are on (MARKETPLACE_TEST_HELPERS_KEY): whoever has the key can create users, change any organization and empty the whole database (POST /test_helpers/reset.json); never set it in production',
    );
  if (config.chaos503Rate > 0)
    warnings.push(
      `MARKETPLACE_CHAOS_503_RATE is ${config.chaos503Rate}: that share of API requests is answered 503 on purpose`,
    );
  const limit = config.openFileLimit;
  if (limit !== undefined && config.maxConnections < 4 * MIN_MAX_CONNECTIONS)
    warnings.push(
      `the open-file limit of this process (${limit}) leaves room for ${config.maxConnections} connections: raise it (ulimit -n, LimitNOFILE=) or set MARKETPLACE_MAX_CONNECTIONS`,
    );
  // A body larger than the whole budget is refused `413`, one that does not fit now `503`.
  const uploads = Math.floor(config.bodyBudgetBytes / config.maxUploadBytes);
  if (uploads < 4)
    warnings.push(
      uploads === 0
        ? `MARKETPLACE_MAX_UPLOAD_BYTES (${config.maxUploadBytes}) is above MARKETPLACE_BODY_BUDGET_BYTES (${config.bodyBudgetBytes}): an upload larger than the budget is refused 413 whatever its limit; raise the budget well above the upload limit`
        : `MARKETPLACE_BODY_BUDGET_BYTES (${config.bodyBudgetBytes}) holds ${uploads} upload${uploads === 1 ? '' : 's'} of MARKETPLACE_MAX_UPLOAD_BYTES (${config.maxUploadBytes}) at once; the next is 503 until one is done: raise the budget well above the upload limit`,
    );
  const { hostname } = new URL(config.baseUrl);
  if (hostname === '0.0.0.0' || hostname === '[::]')
    warnings.push(
      `the url fields, the demo's curl line and the OpenAPI document say ${config.baseUrl}, which no client can open: set MARKETPLACE_BASE_URL to the address clients use`,
    );
  return warnings;
}
