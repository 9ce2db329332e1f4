import { endpoints } from '@app/schemas';
import { defineRoutes, notImplemented } from '../../http/routes.js';

export const notificationRoutes = defineRoutes('notifications', endpoints.notifications, {
  list: notImplemented,
});
