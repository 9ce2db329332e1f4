import { CollabState } from '@app/schemas';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { idColumn, timestampColumns } from '../../db/columns.js';
import { countedBy } from '../../db/pages.js';
import { briefColumns, marketColumns } from '../organization-resources/organization-resource.columns.js';
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
  indexes: [{ properties: ['organization', 'createdAt', 'id'] }],
  // The organization's collabs, counted in `row_counts` (db/pages.ts): a page's total; versioned,
  // so a page is cached until one of them changes (pipeline/page-cache.ts).
  triggers: countedBy({ list: 'collabs', owner: 'organization_id', versioned: true }),
});
export type Collab = InferEntity<typeof Collab>;
