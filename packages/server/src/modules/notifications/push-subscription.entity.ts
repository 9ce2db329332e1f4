import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { newId } from '../../db/ids.js';
import { User } from '../users/user.entity.js';

/** A device registered for web push; made through the test helpers here. */
export const PushSubscription = defineEntity({
  name: 'PushSubscription',
  tableName: 'push_subscriptions',
  properties: {
    id: p
      .string()
      .length(16)
      .primary()
      .onCreate(() => newId()),
    user: () => p.manyToOne(User).deleteRule('cascade'),
    createdAt: p.datetime(3).onCreate(() => new Date()),
  },
  indexes: [{ properties: ['user'] }],
});
export type PushSubscription = InferEntity<typeof PushSubscription>;
