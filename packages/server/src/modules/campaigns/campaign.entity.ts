import { CampaignStatus } from '@app/schemas';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { idColumn, timestampColumns } from '../../db/columns.js';
import { countedBy } from '../../db/pages.js';
import { briefColumns, marketColumns } from '../organization-resources/organization-resource.columns.js';
import { Organization } from '../organizations/organization.entity.js';

export const Campaign = defineEntity({
  name: 'Campaign',
  tableName: 'campaigns',
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    name: p.string().length(200),
    status: p.enum(CampaignStatus.options).default('draft'),
    ...marketColumns(),
    contentType: p.string().length(50).default('video'),
    category: p.string().length(50).default('general'),
    platformIds: p.array().default([]),
    platformMusicId: p.string().length(200).nullable(),
    cpmAmount: p.bigint('number').default(0),
    minPayoutAmount: p.bigint('number').default(0),
    maxPayoutAmount: p.bigint('number').default(0),
    baseRewardAmount: p.bigint('number').default(0),
    totalBudgetAmount: p.bigint('number').default(0),
    usedAmount: p.bigint('number').default(0),
    viewCount: p.bigint('number').default(0),
    submissionsCount: p.integer().default(0),
    ...briefColumns(),
    publishedAt: p.datetime(3).nullable(),
    pausedAt: p.datetime(3).nullable(),
    ...timestampColumns(),
  },
  indexes: [{ properties: ['organization', 'createdAt', 'id'] }],
  // The organization's campaigns, counted in `row_counts` (db/pages.ts): a page's total; versioned,
  // so a page is cached until one of them changes (pipeline/page-cache.ts).
  triggers: countedBy({ list: 'campaigns', owner: 'organization_id', versioned: true }),
});
export type Campaign = InferEntity<typeof Campaign>;
