import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/**
 * How many rows a list has, per list and owner (`collabs` of an organization, `notifications` of
 * a user…): a page's `Total-Count` is read here instead of counting the rows on every page. Kept
 * by triggers on the listed tables (migration `Migration20261126063000`), in the transaction that
 * inserts or deletes the rows, so a statement that reads a page and its count sees both as of the
 * same snapshot. See db/pages.ts for the lists.
 */
export const RowCount = defineEntity({
  name: 'RowCount',
  tableName: 'row_counts',
  properties: {
    list: p.string().length(40).primary(),
    ownerId: p.string().length(16).primary(),
    count: p.integer(),
    /**
     * A versioned list's version (db/pages.ts `countedBy`): the id of the last transaction that
     * inserted, updated or deleted one of its rows. Null for a list that is not versioned.
     */
    version: p.bigint().nullable(),
  },
});
export type RowCount = InferEntity<typeof RowCount>;
