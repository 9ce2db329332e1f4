import { endpoints, type Notification } from '@app/schemas';
import type { PagePromise } from '../../core/pagination.js';
import type { Query } from '../../core/types.js';
import type { ListOptions } from '../../internal/options.js';
import { APIResource } from '../resource.js';

const e = endpoints.notifications;

export class Notifications extends APIResource {
  /** The inbox, newest first. Listing does not mark anything as seen or read. */
  list(params?: Query<typeof e.list>, options?: ListOptions): PagePromise<Notification> {
    return this._client.list(e.list, { query: params }, options);
  }
}
