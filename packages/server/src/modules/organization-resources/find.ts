import { type EntityName, LockMode } from '@mikro-orm/core';
import type { Em } from '../../db/database.js';
import type { DeclaredEntity, ReadOne, ReadPage, ReadResult } from '../../db/reads.js';
import { notFound } from '../../http/errors.js';
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
 * newest first, and the show, each declared (db/reads.ts) and read with the caller in one
 * statement (pipeline/routes.ts), and the presenting of what they read.
 */
export function organizationReads<T extends { id: string }, Summary, Shown>(
  entity: EntityName<T> & DeclaredEntity,
  present: { summary: (row: T, baseUrl: string) => Summary; show: (row: T, baseUrl: string) => Shown },
  /** Properties the list does not show, so does not read (large text columns). */
  listOmits: ReadonlyArray<keyof T & string> = [],
) {
  return {
    /** The list's page; its total is the list its entity is counted as (db/pages.ts). */
    list: {
      entity,
      in: 'organization',
      order: ['createdAt desc', 'id desc'],
      page: true,
      omit: listOmits,
    } satisfies ReadPage<'organization'>,
    show: { entity, in: 'organization', by: 'id' } satisfies ReadOne<'id'>,
    /** A page as read with the caller, and the total of the list (read with it). */
    async presentList(read: ReadResult, baseUrl: string) {
      const items = (read.entities as T[]).map((row) => present.summary(row, baseUrl));
      return { items, total: read.total ?? 0 };
    },
    /** The resource as read with the caller; another organization's id is a 404. */
    async presentShow(read: ReadResult, baseUrl: string) {
      return present.show(readOneOrNotFound<T>(read), baseUrl);
    },
  };
}
