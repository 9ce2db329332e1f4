import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { notFound, UnauthorizedError } from '../http/errors.js';

/**
 * Guards the test helpers: `404` when they are disabled (no key set), `401` unless the request
 * carries `Authorization: Bearer <key>`, compared in constant time.
 */
export async function requireTestHelpersKey(request: FastifyRequest, key: string | undefined): Promise<void> {
  if (!key) throw notFound();
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  const given = Buffer.from(match?.[1] ?? '');
  const expected = Buffer.from(key);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new UnauthorizedError();
}
