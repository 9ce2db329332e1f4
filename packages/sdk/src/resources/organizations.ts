import { endpoints, type Organization, type OrganizationId } from '@app/schemas';
import type { APIPromise } from '../core/api-promise.js';
import type { PagePromise } from '../core/pagination.js';
import type { Payload, Query } from '../core/types.js';
import type { ListOptions, RequestOptions } from '../internal/options.js';
import { APIResource } from './resource.js';

const e = endpoints.organizations;

/** Query of `client.organizations.list()`: `{ page }`. */
export type OrganizationListParams = Query<typeof endpoints.organizations.list>;
/** Body of `client.organizations.create()`; a `logo` Blob/File makes it multipart. */
export type OrganizationCreateParams = Payload<typeof endpoints.organizations.create>;
/** Body of `client.organizations.update()`; `purge_logo: '1'` removes the logo. */
export type OrganizationUpdateParams = Payload<typeof endpoints.organizations.update>;

export class Organizations extends APIResource {
  /** The caller's organizations, oldest first. */
  list(params?: OrganizationListParams, options?: ListOptions): PagePromise<Organization> {
    return this._client.list(e.list, { query: params }, options);
  }

  /** One organization the caller is a member of (404 otherwise). Sends `If-None-Match` (ETag cache). */
  retrieve(id: OrganizationId, options?: RequestOptions): APIPromise<Organization> {
    return this._client.request(e.retrieve, { params: { id } }, options);
  }

  /** The caller becomes the owner. A `logo` Blob/File makes the request multipart. */
  create(body: OrganizationCreateParams, options?: RequestOptions): APIPromise<Organization> {
    return this._client.request(e.create, { body }, options);
  }

  /** Admins only; changes the given fields, omitted fields keep their values. A `logo` makes it multipart. */
  update(
    id: OrganizationId,
    body: OrganizationUpdateParams,
    options?: RequestOptions,
  ): APIPromise<Organization> {
    return this._client.request(e.update, { params: { id }, body }, options);
  }

  /** Owner only; a 422 while a subscription, collab or campaign remains. */
  delete(id: OrganizationId, options?: RequestOptions): APIPromise<void> {
    return this._client.request(e.delete, { params: { id } }, options);
  }
}
