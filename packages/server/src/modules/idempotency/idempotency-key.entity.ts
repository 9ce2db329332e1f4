import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { idColumn } from '../../db/columns.js';
import { User } from '../users/user.entity.js';

/**
 * A `POST`'s `Idempotency-Key` (decisions.md §6), scoped to the caller's user: taken (with a null
 * `status`) before the request's work, then given the answer to replay. One row per user and
 * key, which the unique index keeps across replicas and concurrent requests.
 */
export const IdempotencyKey = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_keys',
  properties: {
    id: idColumn(),
    user: () => p.manyToOne(User).deleteRule('cascade'),
    key: p.string().length(255),
    /** Hex SHA-256 of the method, the path with its query, and the payload. */
    fingerprint: p.string().length(64),
    /** When the key was taken, by the database's clock (one clock for every replica). */
    createdAt: p.datetime(3),
    /** The stored answer's status; null while the first request is in progress. */
    status: p.integer().nullable(),
    /** The stored answer's `Location`, `ETag` and `Content-Type`, as a JSON object. */
    headers: p.text().nullable(),
    /** The stored answer's body (null: none). */
    body: p.text().nullable(),
  },
  uniques: [{ properties: ['user', 'key'] }],
  indexes: [{ properties: ['createdAt'] }],
});
export type IdempotencyKey = InferEntity<typeof IdempotencyKey>;
