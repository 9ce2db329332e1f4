import {
  type Campaign,
  type CampaignId,
  type CampaignSummary,
  endpoints,
  type OrganizationId,
} from '@app/schemas';
import type { APIPromise } from '../core/api-promise.js';
import type { PagePromise } from '../core/pagination.js';
import type { Payload, Query } from '../core/types.js';
import type { ListOptions, RequestOptions } from '../internal/options.js';
import { APIResource } from './resource.js';

const e = endpoints.campaigns;

/** Query of `client.campaigns.list()`: `{ page }`. */
export type CampaignListParams = Query<typeof endpoints.campaigns.list>;
/** Body of `client.campaigns.create()`; a `banner_image` makes it multipart. */
export type CampaignCreateParams = Payload<typeof endpoints.campaigns.create>;
/** Body of `client.campaigns.update()`; financial fields are refused once it was published. */
export type CampaignUpdateParams = Payload<typeof endpoints.campaigns.update>;

export class Campaigns extends APIResource {
  /** Newest first; list items have no `brief`. */
  list(
    orgId: OrganizationId,
    params?: CampaignListParams,
    options?: ListOptions,
  ): PagePromise<CampaignSummary> {
    return this._client.list(e.list, { params: { organization_id: orgId }, query: params }, options);
  }

  /** One campaign, with its `brief` and budget totals; a 404 when it is unknown or not visible. Sends `If-None-Match` (ETag cache). */
  retrieve(orgId: OrganizationId, id: CampaignId, options?: RequestOptions): APIPromise<Campaign> {
    return this._client.request(e.retrieve, { params: { organization_id: orgId, id } }, options);
  }

  /** Creates a draft; omitted fields take the form defaults, budget totals start at 0. */
  create(orgId: OrganizationId, body: CampaignCreateParams, options?: RequestOptions): APIPromise<Campaign> {
    return this._client.request(e.create, { params: { organization_id: orgId }, body }, options);
  }

  /** Once published, financial fields are refused (422 on each). */
  update(
    orgId: OrganizationId,
    id: CampaignId,
    body: CampaignUpdateParams,
    options?: RequestOptions,
  ): APIPromise<Campaign> {
    return this._client.request(e.update, { params: { organization_id: orgId, id }, body }, options);
  }

  /** Drafts without fundings only. */
  delete(orgId: OrganizationId, id: CampaignId, options?: RequestOptions): APIPromise<void> {
    return this._client.request(e.delete, { params: { organization_id: orgId, id } }, options);
  }

  /** draft → active (needs `total_budget_amount > 0`); resolves to the campaign read again. */
  publish(orgId: OrganizationId, id: CampaignId, options?: RequestOptions): APIPromise<Campaign> {
    return this._client.transition(e.publish, { organization_id: orgId, id }, options);
  }

  /** active → paused. */
  pause(orgId: OrganizationId, id: CampaignId, options?: RequestOptions): APIPromise<Campaign> {
    return this._client.transition(e.pause, { organization_id: orgId, id }, options);
  }

  /** paused → active. */
  resume(orgId: OrganizationId, id: CampaignId, options?: RequestOptions): APIPromise<Campaign> {
    return this._client.transition(e.resume, { organization_id: orgId, id }, options);
  }
}
