import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';

/**
 * `@fastify/multipart`, with the file size limit enforced while a form is read; the form's own
 * caps and its reading into the payload are in pipeline/multipart.ts.
 */
export async function registerMultipart(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(multipart, { limits: { fileSize: config.maxUploadBytes } });
}
