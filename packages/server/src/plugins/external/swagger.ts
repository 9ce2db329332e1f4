import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { openapiOptions } from '../../http/openapi.js';

/**
 * `@fastify/swagger`: the OpenAPI document, built from the routes the endpoint table registers
 * (http/openapi.ts says how), served as `GET /openapi.json`.
 */
export async function registerSwagger(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, openapiOptions(config));
  app.get('/openapi', { schema: { hide: true } }, async () => app.swagger());
}
