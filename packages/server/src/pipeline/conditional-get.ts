import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagOf, matchesIfNoneMatch } from '../http/etag.js';

/**
 * `onSend` hook of single-resource GETs: tags a 200 with a weak ETag and answers `304` with no
 * body when `If-None-Match` matches. It runs after authentication and tenancy, so a 304 never
 * tells a caller about something it may not see.
 */
export function conditionalGet(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (reply.statusCode !== 200 || typeof payload !== 'string') return payload;
  const etag = etagOf(payload);
  reply.header('etag', etag);
  if (!matchesIfNoneMatch(request.headers['if-none-match'], etag)) return payload;
  reply.code(304);
  reply.removeHeader('content-type');
  reply.removeHeader('content-length');
  // A HEAD hands the payload on to Fastify's own hook, which reads its length (RFC 9110 lets a
  // 304 carry the 200's Content-Length) and sends no body; it cannot take a null (a 500).
  return request.method === 'HEAD' ? payload : null;
}
