import { join } from 'node:path';
import { type Config, DEFAULT_LIMITS } from '../src/config.js';

/** The settings every test server starts from: loopback, silent, small uploads, helpers on. */
export function testConfig(dataDir: string, testHelpersKey: string, overrides: Partial<Config> = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    databaseUrl: undefined,
    databasePoolSize: 10,
    databasePooler: 'none',
    // Off: a check that fails on a busy test machine would turn away the requests of a test that
    // is not about it. test/database-check.test.ts turns it on.
    databaseCheckIntervalMs: 0,
    dataDir,
    storage: { driver: 'directory', dir: join(dataDir, 'uploads') },
    baseUrl: 'http://marketplace.test',
    testHelpersKey,
    chaos503Rate: 0,
    logLevel: 'silent',
    logFormat: 'json',
    maxUploadBytes: 64 * 1024,
    pageCacheBytes: 16 * 1024 * 1024,
    receiveTimeoutMs: 10_000,
    sendTimeoutMs: 60_000,
    bodyBudgetBytes: 128 * 1024 * 1024,
    briefRenderBudgetMs: 1_000,
    limits: { ...DEFAULT_LIMITS },
    prefillAllowPrivate: false,
    metricsToken: undefined,
    metricsPublic: false,
    corsOrigins: [],
    // No limit: Node's default (a started server derives one from its open-file limit).
    maxConnections: 0,
    // No share of the cap (the harness has no cap either); a test of the share sets both.
    maxInProgressPerClient: 0,
    idempotencyKeysPerUser: 1_000,
    ...overrides,
  };
}
