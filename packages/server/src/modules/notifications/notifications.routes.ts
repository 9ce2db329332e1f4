import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/route.js';
import { listNotifications, presentNotification } from './notifications.service.js';

export const notificationRoutes = defineRoutes('notifications', endpoints.notifications, {
  list: async ({ em, caller, page }) => {
    const { entities, total } = await listNotifications(em, caller.user.id, page);
    return { items: entities.map(presentNotification), total };
  },
});
