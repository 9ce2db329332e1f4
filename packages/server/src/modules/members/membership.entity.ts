import { Role } from '@app/schemas';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { idColumn, timestampColumns } from '../../db/columns.js';
import { Organization } from '../organizations/organization.entity.js';
import { User } from '../users/user.entity.js';

export const Membership = defineEntity({
  name: 'Membership',
  tableName: 'memberships',
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    user: () => p.manyToOne(User).deleteRule('cascade'),
    role: p.enum(Role.options),
    isOwner: p.boolean().default(false),
    ...timestampColumns(),
  },
  uniques: [{ properties: ['organization', 'user'] }],
  indexes: [{ properties: ['user'] }],
});
export type Membership = InferEntity<typeof Membership>;
