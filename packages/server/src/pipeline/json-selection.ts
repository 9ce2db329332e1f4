import type { IncomingMessage } from 'node:http';
import { NOT_ACCEPTABLE_TEXT } from '@app/schemas';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The path of a URL (without its query). */
const pathOf = (url: string) => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

/**
 * Fastify `rewriteUrl`: route matching ignores the `.json` suffix. The suffix asks for JSON: it
 * is read again from the URL as sent (`request.originalUrl`, kept by Fastify), which costs less
 * than remembering each such request in a `WeakSet` (an entry per request for the collector).
 */
export function stripJsonSuffix(raw: IncomingMessage): string {
  const url = raw.url ?? '/';
  const path = pathOf(url);
  if (!path.endsWith('.json')) return url;
  return path.slice(0, -'.json'.length) + url.slice(path.length);
}

/** Whether an `Accept` header asks for `application/json` with a quality above zero. */
export function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((s) => s.trim().toLowerCase());
    if (type !== 'application/json') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** JSON only: selected by the `.json` suffix or by `Accept`. */
export const isJsonRequest = (request: FastifyRequest): boolean =>
  pathOf(request.originalUrl).endsWith('.json') || acceptsJson(request.headers.accept);

/** The `406` of a request that does not ask for JSON. */
export function refuseNotJson(reply: FastifyReply) {
  return reply.code(406).type('text/plain; charset=utf-8').send(NOT_ACCEPTABLE_TEXT);
}
