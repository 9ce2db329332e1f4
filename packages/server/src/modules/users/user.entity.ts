import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { idColumn, timestampColumns } from '../../db/columns.js';

export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: idColumn(),
    name: p.string().length(100),
    email: p.string().length(254).unique(),
    /** When false, push delivery is suppressed; device subscriptions stay registered. */
    pushNotificationsEnabled: p.boolean().default(true),
    ...timestampColumns(),
  },
});
export type User = InferEntity<typeof User>;
