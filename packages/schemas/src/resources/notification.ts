import * as z from 'zod';
import { component } from '../components.js';
import type { Described } from '../described.js';
import * as ex from '../examples.js';
import type { ResourceFieldDocs } from '../field-docs.js';
import { idOf, timestamp, typeError } from '../primitives.js';

export const NotificationId = idOf('NotificationId', 'notification');
export type NotificationId = z.infer<typeof NotificationId>;

/** The one notifier kind the spec shows, sent to every admin when a join request arrives. */
export const JOIN_REQUEST_RECEIVED = 'Membership::JoinRequestReceivedNotifier';

/** Kinds whose `type` starts with this never appear in the inbox list. */
export const SUBMISSION_MESSAGE_PREFIX = 'Submission::Message';

export const Notification = z.object({
  id: NotificationId,
  /** Name of the notifier kind; clients dispatch on it. */
  type: z.string(),
  params: z.record(z.string(), z.unknown()),
  record_type: z.string(),
  record_id: z.string(),
  seen_at: timestamp.nullable(),
  read_at: timestamp.nullable(),
  created_at: timestamp,
});
export type Notification = Described<z.infer<typeof Notification>, ResourceFieldDocs['Notification']>;
component(Notification, {
  id: 'Notification',
  description: "A notification in the caller's inbox.",
  examples: [ex.notification],
});

export const NotificationSettings = z.object({
  /** When false, delivery is suppressed but device subscriptions stay registered. */
  push_notifications_enabled: z.boolean(),
  /** Number of devices currently subscribed for web push. */
  push_subscription_count: z.int().nonnegative(),
});
export type NotificationSettings = Described<
  z.infer<typeof NotificationSettings>,
  ResourceFieldDocs['NotificationSettings']
>;
component(NotificationSettings, {
  id: 'NotificationSettings',
  description: "The caller's notification settings.",
  examples: [ex.notificationSettings],
});

/** Flat body of `PATCH /me/notification_settings.json` (the one payload with no wrapper). */
export const NotificationSettingsUpdate = z.object({
  push_notifications_enabled: z.boolean({ error: typeError('must be true or false') }),
});
export type NotificationSettingsUpdate = z.input<typeof NotificationSettingsUpdate>;
component(NotificationSettingsUpdate, {
  id: 'NotificationSettingsUpdate',
  description: 'Turns push notifications on or off.',
  examples: [{ push_notifications_enabled: false }],
});
