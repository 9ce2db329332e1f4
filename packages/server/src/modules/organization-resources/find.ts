import { type EntityName, LockMode } from '@mikro-orm/core';
import type { Em } from '../../db/database.js';
import { notFound } from '../../http/errors.js';
import type { CallerRead, ReadResult } from '../access-tokens/caller.js';
import type { CountedList } from '../common/pages.js';
import { readOneOrNotFound } from '../common/read-one.js';

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
 * The hot reads of a resource that lives in an organization (collabs, campaigns): the list,
 * newest first, and the show, each read with the caller in one statement (pipeline/routes.ts,
 * `RouteRead`), and the presenting of what they read.
 */
export function organizationReads<T extends { id: string }, Summary, Shown>(
  entity: EntityName<T> & { meta: { className: string } },
  present: { summary: (row: T, baseUrl: string) => Summary; show: (row: T, baseUrl: string) => Shown },
  /** The list of the organization's rows of `entity`, as counted in `row_counts`. */
  counted: CountedList,
  /** Properties the list does not show, so does not read (large text columns). */
  listOmits: ReadonlyArray<keyof T & string> = [],
) {
  const name = entity.meta.className;
  return {
    listRead: (_params: unknown, page: { limit: number; offset: number }): CallerRead => ({
      name: `${name}.list`,
      entity: name,
      where: 'organization_id = $2',
      orderBy: 'created_at desc, id desc',
      omit: listOmits,
      values: [],
      page,
      counted,
    }),
    showRead: (params: { id: string }): CallerRead => ({
      name: `${name}.show`,
      entity: name,
      where: 'organization_id = $2 and id = $3',
      values: [params.id],
    }),
    /** A page as read with the caller, and the total of the list (read with it). */
    async list(read: ReadResult, baseUrl: string) {
      const items = (read.entities as T[]).map((row) => present.summary(row, baseUrl));
      return { items, total: read.total ?? 0 };
    },
    /** The resource as read with the caller; another organization's id is a 404. */
    async show(read: ReadResult, baseUrl: string) {
      return present.show(readOneOrNotFound<T>(read), baseUrl);
    },
  };
}
