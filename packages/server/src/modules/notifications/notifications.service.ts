import type { Em } from '../../db/database.js';
import { Notification } from './notification.entity.js';

export interface NewNotification {
  type: string;
  params: Record<string, unknown>;
  recordType: string;
  recordId: string;
}

/** Puts a notification in the inbox of each recipient (in the caller's unit of work; flushes). */
export async function notify(em: Em, recipientIds: readonly string[], notification: NewNotification) {
  const created = recipientIds.map((recipient) => em.create(Notification, { recipient, ...notification }));
  await em.flush();
  return created;
}
