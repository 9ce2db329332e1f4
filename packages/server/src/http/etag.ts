import { hash } from 'node:crypto';

/** Weak validator of a response body: the same body gives the same tag on every instance. */
export const etagOf = (body: string): string => `W/"${hash('sha256', body, 'base64url').slice(0, 32)}"`;

/** Weak comparison of `If-None-Match` (a list, or `*`) with a tag. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = opaque(etag);
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === wanted);
}
