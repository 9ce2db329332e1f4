import { resolve } from 'node:path';
import { z } from 'zod';
import type { LogFormat } from './http/logging.js';
import { DEFAULT_LIMITS, type Limits } from './modules/common/limits.js';

/** The server's settings (decisions.md §3), read from the environment. */
export interface Config {
  port: number;
  host: string;
  /** `postgres://…`, `pglite://memory`, or undefined for embedded PGlite in `dataDir/pglite`. */
  databaseUrl: string | undefined;
  dataDir: string;
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
   * Milliseconds a client has to send a whole request (head and body); a body still arriving
   * then is answered `408` and its connection closed.
   */
  receiveTimeoutMs: number;
  /** Milliseconds of rendering a brief may take before the brief is refused (`422`). */
  briefRenderBudgetMs: number;
  /** How much one account may create (organizations, tokens, social accounts, collabs, campaigns). */
  limits: Limits;
  /** Bearer token `GET /metrics` requires; undefined: the metrics are open. */
  metricsToken: string | undefined;
  /** Origins allowed to call the API from a browser (CORS); empty: CORS off; `*`: any origin. */
  corsOrigins: string[];
  /** Lets the collab `website` prefill fetch loopback and private addresses (tests, local demos). */
  prefillAllowPrivate: boolean;
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

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .regex(/^(postgres(ql)?:\/\/|pglite:\/\/memory$)/, 'must be a postgres:// URL or pglite://memory')
    .optional(),
  MARKETPLACE_DATA_DIR: z.string().min(1).default('./.data'),
  MARKETPLACE_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  MARKETPLACE_TEST_HELPERS_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  MARKETPLACE_CHAOS_503_RATE: z.coerce.number().min(0).max(1).default(0),
  MARKETPLACE_MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(5 * 1024 * 1024),
  MARKETPLACE_RECEIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
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
  MARKETPLACE_PREFILL_ALLOW_PRIVATE: z.enum(['0', '1']).default('0'),
  MARKETPLACE_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  MARKETPLACE_CORS_ORIGINS: z
    .string()
    .transform((list) => list.split(',').map((origin) => origin.trim().replace(/\/+$/, '')))
    .pipe(
      z.array(
        z.string().refine(isOrigin, 'must be a comma-separated list of origins (https://host[:port]) or *'),
      ),
    )
    .default([]),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
});

export class ConfigError extends Error {}

/** Reads the settings; an unusable value stops the server with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = Env.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  const host = e.HOST;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    port: e.PORT,
    host,
    databaseUrl: e.DATABASE_URL,
    dataDir: resolve(e.MARKETPLACE_DATA_DIR),
    baseUrl: (e.MARKETPLACE_BASE_URL ?? `http://${urlHost}:${e.PORT}`).replace(/\/+$/, ''),
    testHelpersKey: e.MARKETPLACE_TEST_HELPERS_KEY,
    chaos503Rate: e.MARKETPLACE_CHAOS_503_RATE,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    maxUploadBytes: e.MARKETPLACE_MAX_UPLOAD_BYTES,
    receiveTimeoutMs: e.MARKETPLACE_RECEIVE_TIMEOUT_MS,
    briefRenderBudgetMs: e.MARKETPLACE_BRIEF_RENDER_BUDGET_MS,
    limits: {
      organizations: e.MARKETPLACE_LIMIT_ORGANIZATIONS,
      accessTokens: e.MARKETPLACE_LIMIT_ACCESS_TOKENS,
      socialAccounts: e.MARKETPLACE_LIMIT_SOCIAL_ACCOUNTS,
      collabsPerOrganization: e.MARKETPLACE_LIMIT_COLLABS,
      campaignsPerOrganization: e.MARKETPLACE_LIMIT_CAMPAIGNS,
    },
    prefillAllowPrivate: e.MARKETPLACE_PREFILL_ALLOW_PRIVATE === '1',
    metricsToken: e.MARKETPLACE_METRICS_TOKEN,
    corsOrigins: e.MARKETPLACE_CORS_ORIGINS,
  };
}
