import { CollabState } from '@app/schemas';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { idColumn, timestampColumns } from '../../db/columns.js';
import { briefColumns, marketColumns } from '../common/organization-resource.columns.js';
import { Organization } from '../organizations/organization.entity.js';

export const Collab = defineEntity({
  name: 'Collab',
  tableName: 'collabs',
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    name: p.string().length(200),
    state: p.enum(CollabState.options).default('draft'),
    ...marketColumns(),
    requireBoostedAds: p.boolean().default(false),
    requiresProductShipment: p.boolean().default(false),
    submissionsCount: p.integer().default(0),
    completedCount: p.integer().default(0),
    ...briefColumns(),
    publishedAt: p.datetime(3).nullable(),
    ...timestampColumns(),
  },
  indexes: [{ properties: ['organization', 'createdAt'] }],
});
export type Collab = InferEntity<typeof Collab>;
