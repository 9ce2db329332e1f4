import type { FastifyRequest } from 'fastify';
import { bearerMatches } from '../http/bearer.js';
import { notFound, UnauthorizedError } from '../http/errors.js';

/**
 * Guards the test helpers: `404` when they are disabled (no key set), `401` unless the request
 * carries `Authorization: Bearer <key>` ({@link bearerMatches}).
 */
export async function requireTestHelpersKey(request: FastifyRequest, key: string | undefined): Promise<void> {
  if (!key) throw notFound();
  if (!bearerMatches(request, key)) throw new UnauthorizedError();
}
