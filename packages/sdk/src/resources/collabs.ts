import { type Collab, type CollabId, type CollabSummary, endpoints, type OrganizationId } from '@app/schemas';
import type { APIPromise } from '../core/api-promise.js';
import type { PagePromise } from '../core/pagination.js';
import type { Payload, Query } from '../core/types.js';
import type { ListOptions, RequestOptions } from '../internal/options.js';
import { APIResource } from './resource.js';

const e = endpoints.collabs;

/** Query of `client.collabs.list()`: `{ page }`. */
export type CollabListParams = Query<typeof endpoints.collabs.list>;
/** Body of `client.collabs.create()`; every field optional, a `banner_image` makes it multipart. */
export type CollabCreateParams = Payload<typeof endpoints.collabs.create>;
/** Query of `client.collabs.create()`: `{ website }`, a product page to prefill the draft from. */
export type CollabCreateQueryParams = Query<typeof endpoints.collabs.create>;
/** Body of `client.collabs.update()`; `purge_banner_image: '1'` removes the banner. */
export type CollabUpdateParams = Payload<typeof endpoints.collabs.update>;

export class Collabs extends APIResource {
  /** Newest first; list items have no `brief`. */
  list(orgId: OrganizationId, params?: CollabListParams, options?: ListOptions): PagePromise<CollabSummary> {
    return this._client.list(e.list, { params: { organization_id: orgId }, query: params }, options);
  }

  /** One collab, with its `brief`; a 404 when it is unknown or not visible. Sends `If-None-Match` (ETag cache). */
  retrieve(orgId: OrganizationId, id: CollabId, options?: RequestOptions): APIPromise<Collab> {
    return this._client.request(e.retrieve, { params: { organization_id: orgId, id } }, options);
  }

  /**
   * Creates a draft; omitted fields take the server's defaults. `query.website` asks the server to
   * prefill the draft from that product page.
   */
  create(
    orgId: OrganizationId,
    body?: CollabCreateParams,
    query?: CollabCreateQueryParams,
    options?: RequestOptions,
  ): APIPromise<Collab> {
    return this._client.request(e.create, { params: { organization_id: orgId }, body, query }, options);
  }

  /** Changes the given fields; omitted fields keep their values. A `banner_image` makes it multipart. */
  update(
    orgId: OrganizationId,
    id: CollabId,
    body: CollabUpdateParams,
    options?: RequestOptions,
  ): APIPromise<Collab> {
    return this._client.request(e.update, { params: { organization_id: orgId, id }, body }, options);
  }

  /** Drafts only (403 otherwise); 422 once it has submissions. */
  delete(orgId: OrganizationId, id: CollabId, options?: RequestOptions): APIPromise<void> {
    return this._client.request(e.delete, { params: { organization_id: orgId, id } }, options);
  }

  /** draft → submitted_for_review; resolves to the collab read again. */
  submit(orgId: OrganizationId, id: CollabId, options?: RequestOptions): APIPromise<Collab> {
    return this._client.transition(e.submit, { organization_id: orgId, id }, options);
  }

  /** published → paused. */
  pause(orgId: OrganizationId, id: CollabId, options?: RequestOptions): APIPromise<Collab> {
    return this._client.transition(e.pause, { organization_id: orgId, id }, options);
  }

  /** paused → published. */
  unpause(orgId: OrganizationId, id: CollabId, options?: RequestOptions): APIPromise<Collab> {
    return this._client.transition(e.unpause, { organization_id: orgId, id }, options);
  }
}
