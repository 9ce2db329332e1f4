import { endpoints, type NotificationSettings as Settings } from '@app/schemas';
import type { APIPromise } from '../../core/api-promise.js';
import type { Payload } from '../../core/types.js';
import type { RequestOptions } from '../../internal/options.js';
import { APIResource } from '../resource.js';

const e = endpoints.notificationSettings;

/** Body of `client.me.notificationSettings.update()`: `{ push_notifications_enabled }`. */
export type NotificationSettingsUpdateParams = Payload<typeof endpoints.notificationSettings.update>;

export class NotificationSettings extends APIResource {
  /** Whether pushes are on, and how many devices are subscribed. */
  retrieve(options?: RequestOptions): APIPromise<Settings> {
    return this._client.request(e.retrieve, {}, options);
  }

  /** When off, pushes are suppressed but devices stay subscribed. */
  update(body: NotificationSettingsUpdateParams, options?: RequestOptions): APIPromise<Settings> {
    return this._client.request(e.update, { body }, options);
  }
}
