import { SUBMISSION_MESSAGE_PREFIX } from '@app/schemas';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { createdAtColumn, idColumn } from '../../db/columns.js';
import { countedBy } from '../../db/pages.js';
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
  indexes: [{ properties: ['recipient', 'createdAt', 'id', 'type'] }],
  // A user's inbox, counted in `row_counts` (db/pages.ts): a page's total.
  triggers: countedBy({
    list: 'notifications',
    owner: 'recipient_id',
    // Submission-message kinds never appear in the list (spec): not counted either.
    shown: (row) => `${row}.type not like '${SUBMISSION_MESSAGE_PREFIX}%'`,
  }),
});
export type Notification = InferEntity<typeof Notification>;
