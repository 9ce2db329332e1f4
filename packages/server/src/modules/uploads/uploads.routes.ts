import type { FastifyInstance } from 'fastify';
import { notFound } from '../../http/errors.js';
import { matchesIfNoneMatch } from '../../http/etag.js';
import type { UploadStore } from './uploads.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * `GET /uploads/<name>`: stored logos and banners, public (no token), cacheable forever, streamed
 * from the store (so any replica serves any upload). A store that cannot be reached is a `503`.
 * A name is unguessable and its bytes never change (a new upload gets a new name), so the name is
 * the `ETag`: a matching `If-None-Match` is a `304` (the stored file is opened, to know it exists, not sent).
 */
export function registerUploadRoutes(app: FastifyInstance, store: UploadStore): void {
  app.get('/uploads/:name', { schema: { hide: true } }, async (request, reply) => {
    const { name } = request.params as { name: string };
    const file = await store.read(name);
    if (!file) throw notFound();
    const etag = `"${name}"`;
    reply.header('etag', etag).header('cache-control', IMMUTABLE);
    if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) {
      file.body.destroy();
      return reply.code(304).send();
    }
    return reply
      .type(file.type)
      .header('content-length', String(file.length))
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'")
      .send(file.body);
  });
}
