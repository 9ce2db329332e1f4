import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { notFound, UnauthorizedError } from '../http/errors.js';
import { bearerToken } from './auth.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Guards the test helpers: `404` when they are disabled (no key set), `401` unless the request
 * carries `Authorization: Bearer <key>`. The SHA-256 digests of the two are compared in constant
 * time, so neither the key's content nor its length shows in the time an answer takes.
 */
export async function requireTestHelpersKey(request: FastifyRequest, key: string | undefined): Promise<void> {
  if (!key) throw notFound();
  if (!timingSafeEqual(digest(bearerToken(request) ?? ''), digest(key))) throw new UnauthorizedError();
}
