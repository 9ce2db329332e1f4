import { CampaignStatus } from '@app/schemas';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { createdAtColumn, idColumn, updatedAtColumn } from '../../db/columns.js';
import { Organization } from '../organizations/organization.entity.js';

export const Campaign = defineEntity({
  name: 'Campaign',
  tableName: 'campaigns',
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    name: p.string().length(200),
    status: p.enum(CampaignStatus.options).default('draft'),
    /** The database default currency applies when a create leaves it out. */
    currency: p.string().length(3).defaultRaw("'usd'"),
    countries: p.array().default(['US']),
    website: p.text().nullable(),
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
    /** Markdown as written. */
    brief: p.text(),
    /** `brief` rendered to sanitized HTML when it was written (null: written before that was done). */
    briefHtml: p.text().nullable(),
    bannerImage: p.string().length(64).nullable(),
    publishedAt: p.datetime(3).nullable(),
    pausedAt: p.datetime(3).nullable(),
    createdAt: createdAtColumn(),
    updatedAt: updatedAtColumn(),
  },
  indexes: [{ properties: ['organization', 'createdAt'] }],
});
export type Campaign = InferEntity<typeof Campaign>;
