import { Permission } from '@app/schemas';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { createdAtColumn, idColumn } from '../../db/columns.js';
import { User } from '../users/user.entity.js';

/** A personal access token. Only the SHA-256 digest of the token is stored, never the token. */
export const AccessToken = defineEntity({
  name: 'AccessToken',
  tableName: 'access_tokens',
  properties: {
    id: idColumn(),
    user: () => p.manyToOne(User).deleteRule('cascade'),
    description: p.string().length(200),
    permission: p.enum(Permission.options),
    /** Hex SHA-256 of the token; lookups are by digest. */
    digest: p.string().length(64).unique(),
    createdAt: createdAtColumn(),
    lastUsedAt: p.datetime(3).nullable(),
  },
  indexes: [{ properties: ['user', 'createdAt'] }],
});
export type AccessToken = InferEntity<typeof AccessToken>;
