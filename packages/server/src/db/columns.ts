import { p } from '@mikro-orm/core';
import { newId } from './ids.js';

/** Primary key: a random, URL-safe 16-character id (decisions.md §1). */
export const idColumn = () =>
  p
    .string()
    .length(16)
    .primary()
    .onCreate(() => newId());

/** Creation time, to the millisecond (the wire format's precision). */
export const createdAtColumn = () => p.datetime(3).onCreate(() => new Date());

/** Equal to `created_at` on creation (one clock reading), then the time of the latest change. */
export const updatedAtColumn = () =>
  p
    .datetime(3)
    .onCreate((entity: { createdAt?: Date }) => entity.createdAt ?? new Date())
    .onUpdate(() => new Date());

/** Both times of a row that changes after its creation. */
export const timestampColumns = () => ({ createdAt: createdAtColumn(), updatedAt: updatedAtColumn() });
