import { type EntityDictionary, type EntityName, LockMode } from '@mikro-orm/core';
import type { Em } from '../../db/database.js';
import type { Row } from '../../db/statements.js';
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

/**
 * The entity of the row a route read with its caller (http/routes.ts, `RouteRead`), or `404`:
 * no row, or a row of nulls, is a resource that does not exist in the caller's organization.
 */
export function mapOneOrNotFound<T extends object>(em: Em, entity: EntityName<T>, rows: Row[]): T {
  const row = rows[0];
  if (!row || row.id == null) throw notFound();
  return em.map(entity, row as EntityDictionary<T>);
}

/**
 * The entities of a page a route read with its caller, and the total of all pages (`total_count`
 * of any row; past the last page there is none, and `countAll` counts).
 */
export async function mapPage<T extends object>(
  em: Em,
  entity: EntityName<T>,
  rows: Row[],
  page: { offset: number },
  countAll: () => Promise<number>,
): Promise<{ entities: T[]; total: number }> {
  const found = rows.filter((row) => row.id != null);
  const first = found[0];
  if (!first) return { entities: [], total: page.offset === 0 ? 0 : await countAll() };
  return {
    entities: found.map((row) => em.map(entity, row as EntityDictionary<T>)),
    total: Number(first.total_count),
  };
}
