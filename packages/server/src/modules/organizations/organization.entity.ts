import { PrivacySetting } from '@app/schemas';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { idColumn, timestampColumns } from '../../db/columns.js';

export const Organization = defineEntity({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: idColumn(),
    name: p.string().length(100),
    privacySetting: p.enum(PrivacySetting.options).default('private'),
    website: p.text().nullable(),
    /** Stored upload name of the logo, under the uploads directory. */
    logo: p.string().length(64).nullable(),
    /** The logo's size in bytes, for the organization's limit of image bytes (null: none, or kept before sizes were). */
    logoBytes: p.integer().nullable(),
    subscriptionActive: p.boolean().default(false),
    ...timestampColumns(),
  },
});
export type Organization = InferEntity<typeof Organization>;
