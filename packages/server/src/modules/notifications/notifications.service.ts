import { SUBMISSION_MESSAGE_PREFIX } from '@app/schemas';
import type { Em } from '../../db/database.js';
import { iso, isoOrNull } from '../../http/present.js';
import { pushNotificationsEnabled, setPushNotificationsEnabled } from '../users/users.service.js';
import { Notification } from './notification.entity.js';
import { PushSubscription } from './push-subscription.entity.js';

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

export function presentNotification(notification: Notification) {
  return {
    id: notification.id,
    type: notification.type,
    params: notification.params,
    record_type: notification.recordType,
    record_id: notification.recordId,
    seen_at: isoOrNull(notification.seenAt),
    read_at: isoOrNull(notification.readAt),
    created_at: iso(notification.createdAt),
  };
}

/**
 * The inbox, newest first. Submission-message kinds are filtered in SQL so that the page totals
 * count only what is listed. Listing marks nothing as seen or read.
 */
export async function listNotifications(em: Em, userId: string, window: { limit: number; offset: number }) {
  return em.findAndCount(
    Notification,
    { recipient: userId, $not: { type: { $like: `${SUBMISSION_MESSAGE_PREFIX}%` } } },
    { orderBy: { createdAt: 'desc', id: 'desc' }, ...window },
  );
}

export async function notificationSettings(em: Em, userId: string) {
  return {
    push_notifications_enabled: await pushNotificationsEnabled(em, userId),
    push_subscription_count: await em.count(PushSubscription, { user: userId }),
  };
}

/** Turning push off suppresses delivery only: the device subscriptions stay registered. */
export async function updateNotificationSettings(em: Em, userId: string, enabled: boolean) {
  await setPushNotificationsEnabled(em, userId, enabled);
  return notificationSettings(em, userId);
}

export async function createPushSubscription(em: Em, userId: string): Promise<PushSubscription> {
  const subscription = em.create(PushSubscription, { user: userId });
  await em.flush();
  return subscription;
}
