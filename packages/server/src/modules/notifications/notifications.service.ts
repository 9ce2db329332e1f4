import type { Em } from '../../db/database.js';
import { type ReadPage, readPage } from '../../db/reads.js';
import { notFound } from '../../http/errors.js';
import { iso, isoOrNull } from '../../http/present.js';
import { setPushNotificationsEnabled } from '../users/users.service.js';
import { Notification } from './notification.entity.js';
import { PushSubscription } from './push-subscription.entity.js';

export interface NewNotification {
  type: string;
  params: Record<string, unknown>;
  recordType: string;
  recordId: string;
}

/**
 * Puts a notification in the inbox of each recipient (in the caller's unit of work; flushes).
 * Inserted in the order of the recipients' ids: each insert locks its recipient's count in
 * `row_counts` to the commit, and two transactions that lock them in one order cannot deadlock.
 */
export async function notify(em: Em, recipientIds: readonly string[], notification: NewNotification) {
  const created = [...recipientIds]
    .sort()
    .map((recipient) => em.create(Notification, { recipient, ...notification }));
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

const INBOX_PAGE: ReadPage = {
  entity: Notification,
  in: 'recipient',
  order: ['createdAt desc', 'id desc'],
  page: true,
};

/**
 * The inbox, newest first, and its total, in one statement (db/pages.ts). Submission-message
 * kinds are left out in SQL and not counted, so that the page totals count only what is listed.
 * Listing marks nothing as seen or read.
 */
export async function listNotifications(em: Em, userId: string, window: { limit: number; offset: number }) {
  return readPage<Notification>(em, INBOX_PAGE, userId, window);
}

/*
 * The settings are the user's push flag and the number of registered devices: read in one
 * statement, so that the show stays at two round trips with authentication.
 */
const SETTINGS_SQL = `
select u.push_notifications_enabled,
       (select count(*)::int from push_subscriptions p where p.user_id = u.id) as push_subscription_count
from users u where u.id = ?`;

export async function notificationSettings(em: Em, userId: string) {
  const [row] = await em.execute<{ push_notifications_enabled: boolean; push_subscription_count: number }[]>(
    SETTINGS_SQL,
    [userId],
  );
  if (!row) throw notFound();
  return {
    push_notifications_enabled: row.push_notifications_enabled,
    push_subscription_count: Number(row.push_subscription_count),
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
