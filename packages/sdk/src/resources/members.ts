import { endpoints, type Membership, type MembershipId, type OrganizationId } from '@app/schemas';
import type { APIPromise } from '../core/api-promise.js';
import type { PagePromise } from '../core/pagination.js';
import type { Payload, Query } from '../core/types.js';
import type { ListOptions, RequestOptions } from '../internal/options.js';
import { APIResource } from './resource.js';

const e = endpoints.members;

/** Query of `client.members.list()`: `{ page }`. */
export type MemberListParams = Query<typeof endpoints.members.list>;
/** Body of `client.members.update()`: `{ role }`. */
export type MemberUpdateParams = Payload<typeof endpoints.members.update>;

export class Members extends APIResource {
  /** Admins first, then by join date. */
  list(orgId: OrganizationId, params?: MemberListParams, options?: ListOptions): PagePromise<Membership> {
    return this._client.list(e.list, { params: { organization_id: orgId }, query: params }, options);
  }

  /** Changes a member's role; the owner and the last admin cannot be demoted (422). */
  update(
    orgId: OrganizationId,
    id: MembershipId,
    body: MemberUpdateParams,
    options?: RequestOptions,
  ): APIPromise<Membership> {
    return this._client.request(e.update, { params: { organization_id: orgId, id }, body }, options);
  }

  /** Removes a member, or leaves the organization when `id` is the caller's own membership. */
  delete(orgId: OrganizationId, id: MembershipId, options?: RequestOptions): APIPromise<void> {
    return this._client.request(e.delete, { params: { organization_id: orgId, id } }, options);
  }
}
