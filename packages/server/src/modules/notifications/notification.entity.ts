import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { newId } from '../../db/ids.js';
import { User } from '../users/user.entity.js';

/** An inbox item of one user. */
export const Notification = defineEntity({
  name: 'Notification',
  tableName: 'notifications',
  properties: {
    id: p
      .string()
      .length(16)
      .primary()
      .onCreate(() => newId()),
    recipient: () => p.manyToOne(User).deleteRule('cascade'),
    type: p.string().length(200),
    params: p.json<Record<string, unknown>>(),
    recordType: p.string().length(200),
    recordId: p.string().length(200),
    seenAt: p.datetime(3).nullable(),
    readAt: p.datetime(3).nullable(),
    createdAt: p.datetime(3).onCreate(() => new Date()),
  },
  indexes: [{ properties: ['recipient', 'createdAt'] }],
});
export type Notification = InferEntity<typeof Notification>;
