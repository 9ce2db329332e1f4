import { endpoints, type Notification } from '@app/schemas';
import type { PagePromise } from '../../core/pagination.js';
import type { Query } from '../../core/types.js';
import type { ListOptions } from '../../internal/options.js';
import { APIResource } from '../resource.js';

const e = endpoints.notifications;

/** Query of `client.me.notifications.list()`: `{ page }`. */
export type NotificationListParams = Query<typeof endpoints.notifications.list>;

export class Notifications extends APIResource {
  /** The inbox, newest first. Listing does not mark anything as seen or read. */
  list(params?: NotificationListParams, options?: ListOptions): PagePromise<Notification> {
    return this._client.list(e.list, { query: params }, options);
  }
}
