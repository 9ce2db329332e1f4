import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/** The credential of `Authorization: Bearer <credential>`, or null. */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? (match[1] as string) : null;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Whether the request carries `Authorization: Bearer <secret>`. The SHA-256 digests of the two
 * are compared in constant time, so neither the secret's content nor its length shows in the time
 * an answer takes.
 */
export function bearerMatches(request: FastifyRequest, secret: string): boolean {
  return timingSafeEqual(digest(bearerToken(request) ?? ''), digest(secret));
}
