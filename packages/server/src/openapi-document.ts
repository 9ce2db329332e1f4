import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import type { Orm } from './db/database.js';

/** Where the committed document lives, from the repository root. */
export const OPENAPI_PATH = 'openapi.json';

/**
 * The OpenAPI document of a server with the default settings (no test helpers unless asked for),
 * as `GET /openapi.json` serves it; written to the committed `openapi.json` by `pnpm openapi`.
 * The document needs no database: the app is built, never started.
 */
export async function openapiDocument(
  options: { testHelpers?: boolean; baseUrl?: string } = {},
): Promise<string> {
  const config = loadConfig({
    MARKETPLACE_BASE_URL: options.baseUrl ?? 'http://127.0.0.1:3000',
    // No database to check.
    MARKETPLACE_DATABASE_CHECK_INTERVAL_MS: '0',
    ...(options.testHelpers && { MARKETPLACE_TEST_HELPERS_KEY: 'openapi-document-key-0123456789abcdef' }),
  });
  const app = await buildApp({ config, orm: {} as Orm, logger: false });
  try {
    await app.ready();
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await app.close();
  }
}
