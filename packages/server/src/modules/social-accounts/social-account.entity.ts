import { PlatformId, SocialAccountStatus } from '@app/schemas';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { idColumn, timestampColumns } from '../../db/columns.js';
import { User } from '../users/user.entity.js';

export const SocialAccount = defineEntity({
  name: 'SocialAccount',
  tableName: 'social_accounts',
  properties: {
    id: idColumn(),
    user: () => p.manyToOne(User).deleteRule('cascade'),
    platformId: p.enum(PlatformId.options),
    /** Normalised URL; unique across all users. */
    accountUrl: p.string().length(2048).unique(),
    uid: p.string().length(200),
    status: p.enum(SocialAccountStatus.options).default('pending'),
    subscriberCount: p.bigint('number').nullable(),
    viewCount: p.bigint('number').nullable(),
    videoCount: p.bigint('number').nullable(),
    likesCount: p.bigint('number').nullable(),
    engagementRate: p.decimal('string').precision(12).scale(4).nullable(),
    lastSyncedAt: p.datetime(3).nullable(),
    ...timestampColumns(),
  },
  indexes: [{ properties: ['user', 'createdAt'] }],
});
export type SocialAccount = InferEntity<typeof SocialAccount>;
