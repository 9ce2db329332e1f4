import { buildOpenapiDocument } from './http/openapi.js';

/** Where the committed document lives, from the repository root. */
export const OPENAPI_PATH = 'openapi.json';

/**
 * The OpenAPI document of a server with the default settings (no test helpers unless asked for),
 * as `GET /openapi.json` serves it; written to the committed `openapi.json` by `pnpm openapi`.
 * Built from the endpoint table and the zod schemas: no app, no database.
 */
export async function openapiDocument(
  options: { testHelpers?: boolean; baseUrl?: string } = {},
): Promise<string> {
  const document = buildOpenapiDocument({
    baseUrl: options.baseUrl ?? 'http://127.0.0.1:3000',
    testHelpers: options.testHelpers ?? false,
  });
  return `${JSON.stringify(document, null, 2)}\n`;
}
