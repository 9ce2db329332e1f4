import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { createdAtColumn, idColumn } from '../../db/columns.js';
import { Organization } from '../organizations/organization.entity.js';
import { User } from '../users/user.entity.js';

/** A user's request to join an organization; made through the test helpers here. */
export const JoinRequest = defineEntity({
  name: 'JoinRequest',
  tableName: 'join_requests',
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    user: () => p.manyToOne(User).deleteRule('cascade'),
    createdAt: createdAtColumn(),
  },
  indexes: [{ properties: ['organization'] }],
});
export type JoinRequest = InferEntity<typeof JoinRequest>;
