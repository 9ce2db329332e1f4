import { type EntityName, LockMode } from '@mikro-orm/core';
import type { Em } from '../../db/database.js';
import { notFound } from '../../http/errors.js';

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
