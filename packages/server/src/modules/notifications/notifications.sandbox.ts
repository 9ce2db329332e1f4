import { notFound } from '../../http/errors.js';
import type { TestHelperHandlers } from '../../http/route.js';
import { userExists } from '../users/users.service.js';
import type { Notification } from './notification.entity.js';
import { createPushSubscription, notify, presentNotification } from './notifications.service.js';

/** Test-helper handlers of this module (decisions.md §4). */
export const notificationTestHelpers = {
  createNotification: async ({ em, params, body }) => {
    if (!(await userExists(em, params.user_id))) throw notFound();
    const [created] = await notify(em, [params.user_id], {
      type: body.type,
      params: body.params,
      recordType: body.record_type,
      recordId: body.record_id,
    });
    return presentNotification(created as Notification);
  },
  createPushSubscription: async ({ em, params }) => {
    if (!(await userExists(em, params.user_id))) throw notFound();
    const subscription = await createPushSubscription(em, params.user_id);
    return { id: subscription.id };
  },
} satisfies Partial<TestHelperHandlers>;
