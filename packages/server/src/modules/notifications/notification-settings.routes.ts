import { endpoints } from '@app/schemas';
import { defineRoutes, notImplemented } from '../../http/routes.js';

export const notificationSettingsRoutes = defineRoutes(
  'notificationSettings',
  endpoints.notificationSettings,
  {
    retrieve: notImplemented,
    update: notImplemented,
  },
);
