import { notFound } from '../../http/errors.js';

/**
 * The resource a route read with its caller (a declared read, db/reads.ts), or `404`: nothing
 * selected is a resource that does not exist in the caller's organization.
 */
export function readOneOrNotFound<T>(read: { entities: readonly unknown[] }): T {
  const [found] = read.entities;
  if (!found) throw notFound();
  return found as T;
}
