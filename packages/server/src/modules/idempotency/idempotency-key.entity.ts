import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { idColumn } from '../../db/columns.js';
import { User } from '../users/user.entity.js';

/**
 * A `POST`'s `Idempotency-Key` (decisions.md §6), scoped to the caller's user: the answer to
 * replay, stored in the transaction of the request's write (idempotency.service.ts). One row per
 * user and key.
 */
export const IdempotencyKey = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_keys',
  properties: {
    id: idColumn(),
    user: () => p.manyToOne(User).deleteRule('cascade'),
    /** The key's SHA-256, hex (idempotency.service.ts `storedKeyOf`): the key itself is not kept. */
    key: p.string().length(255),
    /** Hex SHA-256 of the method, the path with its query, and the payload. */
    fingerprint: p.string().length(64),
    /** When the answer was stored, by the database's clock (one clock for every replica). */
    createdAt: p.datetime(3),
    /** The stored answer's status (null only in rows an older version left unanswered). */
    status: p.integer().nullable(),
    /** The stored answer's `Location`, `ETag` and `Content-Type`, as a JSON object. */
    headers: p.text().nullable(),
    /** The stored answer's body, sealed under the client's key (`sealBody`; null: none). */
    body: p.text().nullable(),
  },
  uniques: [{ properties: ['user', 'key'] }],
  // `createdAt`: the expired keys of everyone; `user, createdAt`: a user's newest keys, past which
  // its older ones are forgotten (idempotency.service.ts, `MARKETPLACE_IDEMPOTENCY_KEYS_PER_USER`).
  indexes: [{ properties: ['createdAt'] }, { properties: ['user', 'createdAt'] }],
});
export type IdempotencyKey = InferEntity<typeof IdempotencyKey>;
