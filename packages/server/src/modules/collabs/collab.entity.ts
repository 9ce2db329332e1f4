import { CollabState } from '@app/schemas';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { createdAtColumn, idColumn, updatedAtColumn } from '../../db/columns.js';
import { Organization } from '../organizations/organization.entity.js';

export const Collab = defineEntity({
  name: 'Collab',
  tableName: 'collabs',
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    name: p.string().length(200),
    state: p.enum(CollabState.options).default('draft'),
    /** The database default currency applies when a create leaves it out (spec). */
    currency: p.string().length(3).defaultRaw("'usd'"),
    countries: p.array().default(['US']),
    website: p.text().nullable(),
    requireBoostedAds: p.boolean().default(false),
    requiresProductShipment: p.boolean().default(false),
    submissionsCount: p.integer().default(0),
    completedCount: p.integer().default(0),
    /** Markdown as written. */
    brief: p.text(),
    /** `brief` rendered to sanitized HTML when it was written (null: written before that was done). */
    briefHtml: p.text().nullable(),
    bannerImage: p.string().length(64).nullable(),
    publishedAt: p.datetime(3).nullable(),
    createdAt: createdAtColumn(),
    updatedAt: updatedAtColumn(),
  },
  indexes: [{ properties: ['organization', 'createdAt'] }],
});
export type Collab = InferEntity<typeof Collab>;
