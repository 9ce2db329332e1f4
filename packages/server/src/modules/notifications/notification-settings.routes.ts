import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/route.js';
import { notificationSettings, updateNotificationSettings } from './notifications.service.js';

export const notificationSettingsRoutes = defineRoutes(
  'notificationSettings',
  endpoints.notificationSettings,
  {
    retrieve: ({ em, caller }) => notificationSettings(em, caller.user.id),
    update: ({ em, caller, body }) =>
      updateNotificationSettings(em, caller.user.id, body.push_notifications_enabled),
  },
);
