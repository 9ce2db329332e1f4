import type { FastifyInstance } from 'fastify';
import { notFound } from '../../http/errors.js';
import type { UploadStore } from './uploads.js';

/**
 * `GET /uploads/<name>`: stored logos and banners, public (no token), cacheable forever, streamed
 * from the store (so any replica serves any upload). A store that cannot be reached is a `503`.
 */
export function registerUploadRoutes(app: FastifyInstance, store: UploadStore): void {
  app.get('/uploads/:name', { schema: { hide: true } }, async (request, reply) => {
    const { name } = request.params as { name: string };
    const file = await store.read(name);
    if (!file) throw notFound();
    return reply
      .type(file.type)
      .header('content-length', String(file.length))
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'")
      .send(file.body);
  });
}
