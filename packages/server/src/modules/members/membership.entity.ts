import { Role } from '@app/schemas';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { idColumn, timestampColumns } from '../../db/columns.js';
import { type CountedList, countedBy } from '../../db/pages.js';
import { Organization } from '../organizations/organization.entity.js';
import { User } from '../users/user.entity.js';

/** An organization's members, counted in `row_counts` (db/pages.ts). */
export const MEMBERS_LIST: CountedList = { list: 'members', owner: 'organization_id' };

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
  triggers: countedBy(MEMBERS_LIST),
});
export type Membership = InferEntity<typeof Membership>;
