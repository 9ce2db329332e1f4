import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { createdAtColumn, idColumn } from '../../db/columns.js';
import { User } from '../users/user.entity.js';

/** An inbox item of one user. */
export const Notification = defineEntity({
  name: 'Notification',
  tableName: 'notifications',
  properties: {
    id: idColumn(),
    recipient: () => p.manyToOne(User).deleteRule('cascade'),
    type: p.string().length(200),
    params: p.json<Record<string, unknown>>(),
    recordType: p.string().length(200),
    recordId: p.string().length(200),
    seenAt: p.datetime(3).nullable(),
    readAt: p.datetime(3).nullable(),
    createdAt: createdAtColumn(),
  },
  indexes: [{ properties: ['recipient', 'createdAt'] }],
});
export type Notification = InferEntity<typeof Notification>;
