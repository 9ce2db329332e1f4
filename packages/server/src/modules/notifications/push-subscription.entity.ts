import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { createdAtColumn, idColumn } from '../../db/columns.js';
import { User } from '../users/user.entity.js';

/** A device registered for web push; made through the test helpers here. */
export const PushSubscription = defineEntity({
  name: 'PushSubscription',
  tableName: 'push_subscriptions',
  properties: {
    id: idColumn(),
    user: () => p.manyToOne(User).deleteRule('cascade'),
    createdAt: createdAtColumn(),
  },
  indexes: [{ properties: ['user'] }],
});
export type PushSubscription = InferEntity<typeof PushSubscription>;
