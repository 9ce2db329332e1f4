import { Role } from '@app/schemas';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { idColumn, timestampColumns } from '../../db/columns.js';
import { countedBy } from '../../db/pages.js';
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
  indexes: [{ properties: ['user'] }, { properties: ['organization', 'role', 'createdAt', 'id'] }],
  // An organization's members, counted in `row_counts` (db/pages.ts): a page's total.
  triggers: countedBy({ list: 'members', owner: 'organization_id' }),
});
export type Membership = InferEntity<typeof Membership>;
