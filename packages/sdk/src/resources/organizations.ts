import { endpoints, type Organization, type OrganizationId } from '@app/schemas';
import type { APIPromise } from '../core/api-promise.js';
import type { PagePromise } from '../core/pagination.js';
import type { Payload, Query } from '../core/types.js';
import type { ListOptions, RequestOptions } from '../internal/options.js';
import { APIResource } from './resource.js';

const e = endpoints.organizations;

export class Organizations extends APIResource {
  /** The caller's organizations, oldest first. */
  list(params?: Query<typeof e.list>, options?: ListOptions): PagePromise<Organization> {
    return this._client.list(e.list, { query: params }, options);
  }

  retrieve(id: OrganizationId, options?: RequestOptions): APIPromise<Organization> {
    return this._client.request(e.retrieve, { params: { id } }, options);
  }

  /** The caller becomes the owner. A `logo` Blob/File makes the request multipart. */
  create(body: Payload<typeof e.create>, options?: RequestOptions): APIPromise<Organization> {
    return this._client.request(e.create, { body }, options);
  }

  update(
    id: OrganizationId,
    body: Payload<typeof e.update>,
    options?: RequestOptions,
  ): APIPromise<Organization> {
    return this._client.request(e.update, { params: { id }, body }, options);
  }

  /** Owner only; a 422 while a subscription, collab or campaign remains. */
  delete(id: OrganizationId, options?: RequestOptions): APIPromise<void> {
    return this._client.request(e.delete, { params: { id } }, options);
  }
}
