import type { IncomingMessage } from 'node:http';
import { NOT_ACCEPTABLE_TEXT } from '@app/schemas';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Requests whose path carried the `.json` suffix (stripped before routing). */
const suffixed = new WeakSet<IncomingMessage>();

/**
 * Fastify `rewriteUrl`: route matching ignores the `.json` suffix; the suffix is remembered as a
 * request for JSON.
 */
export function stripJsonSuffix(raw: IncomingMessage): string {
  const url = raw.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (!path.endsWith('.json')) return url;
  suffixed.add(raw);
  return path.slice(0, -'.json'.length) + (q === -1 ? '' : url.slice(q));
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
  suffixed.has(request.raw) || acceptsJson(request.headers.accept);

/** The `406` of a request that does not ask for JSON. */
export function refuseNotJson(reply: FastifyReply) {
  return reply.code(406).type('text/plain; charset=utf-8').send(NOT_ACCEPTABLE_TEXT);
}
