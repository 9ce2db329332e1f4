import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/routes.js';
import { pageWindow } from '../../plugins/pagination.js';
import { listNotifications, presentNotification } from './notifications.service.js';

export const notificationRoutes = defineRoutes('notifications', endpoints.notifications, {
  list: async ({ em, caller, query }) => {
    const [notifications, total] = await listNotifications(em, caller.user.id, pageWindow(query.page ?? 1));
    return { items: notifications.map(presentNotification), total };
  },
});
