import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { newId } from '../../db/ids.js';

export const Organization = defineEntity({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: p
      .string()
      .length(16)
      .primary()
      .onCreate(() => newId()),
    name: p.string().length(100),
    privacySetting: p.enum(['public', 'private', 'restricted'] as const).default('private'),
    website: p.text().nullable(),
    /** Stored upload name of the logo, under the uploads directory. */
    logo: p.string().length(64).nullable(),
    subscriptionActive: p.boolean().default(false),
    createdAt: p.datetime(3).onCreate(() => new Date()),
    updatedAt: p
      .datetime(3)
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Organization = InferEntity<typeof Organization>;
