import { type EntityName, LockMode } from '@mikro-orm/core';
import type { Em } from '../../db/database.js';
import { notFound } from '../../http/errors.js';
import type { ReadResult } from '../access-tokens/caller.js';

/**
 * A row of an organization by its id, or `404`: another organization's id is answered like an
 * unknown one. With `lock`, the row is locked for update until the transaction of `em` ends.
 */
export async function findInOrganization<T extends object>(
  em: Em,
  entity: EntityName<T>,
  organizationId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<T> {
  const found = await em.findOne(
    entity,
    { id, organization: organizationId } as never,
    options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
  );
  if (!found) throw notFound();
  return found as T;
}

/**
 * The resource a route read with its caller (http/routes.ts, `RouteRead`), or `404`: nothing
 * selected is a resource that does not exist in the caller's organization.
 */
export function readOneOrNotFound<T>(read: ReadResult): T {
  const [found] = read.entities;
  if (!found) throw notFound();
  return found as T;
}

/**
 * The page a route read with its caller, and the total of all pages (read with the page; past the
 * last page, `countAll` counts).
 */
export async function readPage<T>(
  read: ReadResult,
  page: { offset: number },
  countAll: () => Promise<number>,
): Promise<{ entities: T[]; total: number }> {
  const total = read.total ?? (page.offset === 0 ? 0 : await countAll());
  return { entities: read.entities as T[], total };
}
