import {
  type CampaignId,
  type CollabId,
  testHelperEndpoints as h,
  type OrganizationId,
  type SocialAccountId,
  type UserId,
} from '@app/schemas';
import type { APIPromise } from '../core/api-promise.js';
import type { Payload, Result } from '../core/types.js';
import type { TestHelperOptions } from '../internal/options.js';
import { APIResource } from './resource.js';

/**
 * The reference server's sandbox set-up API (decisions.md §4): it makes what the real service
 * makes through its web app (users, members, submissions, fundings, reviews, syncs). Only
 * `@app/server` started with `MARKETPLACE_TEST_HELPERS_KEY` answers it; give that key as the
 * client's or the call's `testHelpersKey`.
 */
export class TestHelpers extends APIResource {
  /** A user with an access token (`write` unless asked otherwise). */
  createUser(
    body: Payload<typeof h.createUser>,
    options?: TestHelperOptions,
  ): APIPromise<Result<typeof h.createUser>> {
    return this._client.request(h.createUser, { body }, options);
  }

  addMember(
    orgId: OrganizationId,
    body: Payload<typeof h.addMember>,
    options?: TestHelperOptions,
  ): APIPromise<Result<typeof h.addMember>> {
    return this._client.request(h.addMember, { params: { organization_id: orgId }, body }, options);
  }

  /** Notifies every admin of the organization. */
  createJoinRequest(
    orgId: OrganizationId,
    body: Payload<typeof h.createJoinRequest>,
    options?: TestHelperOptions,
  ): APIPromise<Result<typeof h.createJoinRequest>> {
    return this._client.request(h.createJoinRequest, { params: { organization_id: orgId }, body }, options);
  }

  setSubscription(
    orgId: OrganizationId,
    body: Payload<typeof h.setSubscription>,
    options?: TestHelperOptions,
  ): APIPromise<Result<typeof h.setSubscription>> {
    return this._client.request(h.setSubscription, { params: { organization_id: orgId }, body }, options);
  }

  createSubmission(
    orgId: OrganizationId,
    id: CollabId,
    options?: TestHelperOptions,
  ): APIPromise<Result<typeof h.createSubmission>> {
    return this._client.request(h.createSubmission, { params: { organization_id: orgId, id } }, options);
  }

  /** Forces a state, e.g. `published` (the marketplace's review). */
  setCollabState(
    orgId: OrganizationId,
    id: CollabId,
    body: Payload<typeof h.setCollabState>,
    options?: TestHelperOptions,
  ): APIPromise<Result<typeof h.setCollabState>> {
    return this._client.request(h.setCollabState, { params: { organization_id: orgId, id }, body }, options);
  }

  createFunding(
    orgId: OrganizationId,
    id: CampaignId,
    body: Payload<typeof h.createFunding>,
    options?: TestHelperOptions,
  ): APIPromise<Result<typeof h.createFunding>> {
    return this._client.request(h.createFunding, { params: { organization_id: orgId, id }, body }, options);
  }

  /** Forces a status, e.g. `finished`. */
  setCampaignStatus(
    orgId: OrganizationId,
    id: CampaignId,
    body: Payload<typeof h.setCampaignStatus>,
    options?: TestHelperOptions,
  ): APIPromise<Result<typeof h.setCampaignStatus>> {
    return this._client.request(
      h.setCampaignStatus,
      { params: { organization_id: orgId, id }, body },
      options,
    );
  }

  syncSocialAccount(
    id: SocialAccountId,
    body: Payload<typeof h.syncSocialAccount>,
    options?: TestHelperOptions,
  ): APIPromise<Result<typeof h.syncSocialAccount>> {
    return this._client.request(h.syncSocialAccount, { params: { id }, body }, options);
  }

  createNotification(
    userId: UserId,
    body: Payload<typeof h.createNotification>,
    options?: TestHelperOptions,
  ): APIPromise<Result<typeof h.createNotification>> {
    return this._client.request(h.createNotification, { params: { user_id: userId }, body }, options);
  }

  createPushSubscription(
    userId: UserId,
    options?: TestHelperOptions,
  ): APIPromise<Result<typeof h.createPushSubscription>> {
    return this._client.request(h.createPushSubscription, { params: { user_id: userId } }, options);
  }

  /** Empties the sandbox: every user, organization and token (theirs stop working) and every upload. */
  reset(options?: TestHelperOptions): APIPromise<void> {
    return this._client.request(h.reset, {}, options);
  }
}
