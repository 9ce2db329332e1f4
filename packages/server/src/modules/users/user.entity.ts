import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { newId } from '../../db/ids.js';

export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p
      .string()
      .length(16)
      .primary()
      .onCreate(() => newId()),
    name: p.string().length(100),
    email: p.string().length(254).unique(),
    /** When false, push delivery is suppressed; device subscriptions stay registered. */
    pushNotificationsEnabled: p.boolean().default(true),
    createdAt: p.datetime(3).onCreate(() => new Date()),
    updatedAt: p
      .datetime(3)
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type User = InferEntity<typeof User>;
