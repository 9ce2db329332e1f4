import { endpoints, type NotificationSettings as Settings } from '@app/schemas';
import type { RequestOptions } from '../../client.js';
import type { Payload } from '../../internal/types.js';
import { APIResource } from '../resource.js';

const e = endpoints.notificationSettings;

export class NotificationSettings extends APIResource {
  retrieve(options?: RequestOptions): Promise<Settings> {
    return this._client.request(e.retrieve, {}, options);
  }

  /** When off, pushes are suppressed but devices stay subscribed. */
  update(body: Payload<typeof e.update>, options?: RequestOptions): Promise<Settings> {
    return this._client.request(e.update, { body }, options);
  }
}
