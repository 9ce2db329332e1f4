import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { buildOpenapiDocument } from '../http/openapi.js';

/**
 * The OpenAPI document, built once from the endpoint table and the zod schemas (http/openapi.ts
 * says how), served as `GET /openapi.json`.
 */
export async function registerOpenapi(app: FastifyInstance, config: Config): Promise<void> {
  const document = buildOpenapiDocument({
    baseUrl: config.baseUrl,
    testHelpers: Boolean(config.testHelpersKey),
  });
  app.get('/openapi', { schema: { hide: true } }, async () => document);
}
