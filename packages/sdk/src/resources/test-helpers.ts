import {
  type Campaign,
  type CampaignId,
  type Collab,
  type CollabId,
  testHelperEndpoints as h,
  type Membership,
  type Notification,
  type OrganizationId,
  type SocialAccount,
  type SocialAccountId,
  type TestFunding,
  type TestJoinRequest,
  type TestPushSubscription,
  type TestSubmission,
  type TestSubscription,
  type TestUserCreated,
  type testHelperEndpoints,
  type UserId,
} from '@app/schemas';
import type { APIPromise } from '../core/api-promise.js';
import type { Payload } from '../core/types.js';
import type { TestHelperOptions } from '../internal/options.js';
import { APIResource } from './resource.js';

/** Body of `client.testHelpers.createUser()`: `{ user: { name, email }, access_token? }`. */
export type TestUserCreateParams = Payload<typeof testHelperEndpoints.createUser>;
/** Body of `client.testHelpers.addMember()`: `{ user_id, role }`. */
export type TestMemberCreateParams = Payload<typeof testHelperEndpoints.addMember>;
/** Body of `client.testHelpers.createJoinRequest()`: `{ user_id }`. */
export type TestJoinRequestCreateParams = Payload<typeof testHelperEndpoints.createJoinRequest>;
/** Body of `client.testHelpers.setSubscription()`: `{ active }`. */
export type TestSubscriptionSetParams = Payload<typeof testHelperEndpoints.setSubscription>;
/** Body of `client.testHelpers.setCollabState()`: `{ state }`. */
export type TestCollabStateSetParams = Payload<typeof testHelperEndpoints.setCollabState>;
/** Body of `client.testHelpers.createFunding()`: `{ amount }`. */
export type TestFundingCreateParams = Payload<typeof testHelperEndpoints.createFunding>;
/** Body of `client.testHelpers.setCampaignStatus()`: `{ status }`. */
export type TestCampaignStatusSetParams = Payload<typeof testHelperEndpoints.setCampaignStatus>;
/** Body of `client.testHelpers.syncSocialAccount()`: the stats snapshot. */
export type TestSocialAccountSyncParams = Payload<typeof testHelperEndpoints.syncSocialAccount>;
/** Body of `client.testHelpers.createNotification()`: `{ type, params, record_type, record_id }`. */
export type TestNotificationCreateParams = Payload<typeof testHelperEndpoints.createNotification>;

/**
 * What each test helper resolves to: its response's resource type, whose fields show their
 * meaning on hover (`ResourceFieldDocs`). Each method's `request` checks that its endpoint's
 * response is this type.
 */
interface Replies {
  createUser: TestUserCreated;
  addMember: Membership;
  createJoinRequest: TestJoinRequest;
  setSubscription: TestSubscription;
  createSubmission: TestSubmission;
  setCollabState: Collab;
  createFunding: TestFunding;
  setCampaignStatus: Campaign;
  syncSocialAccount: SocialAccount;
  createNotification: Notification;
  createPushSubscription: TestPushSubscription;
}
/** What test helper `K` resolves to. */
type Reply<K extends keyof Replies> = APIPromise<Replies[K]>;

/**
 * The reference server's sandbox set-up API (decisions.md §4): it makes what the real service
 * makes through its web app (users, members, submissions, fundings, reviews, syncs). Only
 * `@app/server` started with `MARKETPLACE_TEST_HELPERS_KEY` answers it; give that key as the
 * client's or the call's `testHelpersKey`.
 */
export class TestHelpers extends APIResource {
  /** A user with an access token (`write` unless asked otherwise). */
  createUser(body: TestUserCreateParams, options?: TestHelperOptions): Reply<'createUser'> {
    return this._client.request(h.createUser, { body }, options);
  }

  /** Makes a user a member (`role`) of the organization; a 422 when already one. */
  addMember(
    orgId: OrganizationId,
    body: TestMemberCreateParams,
    options?: TestHelperOptions,
  ): Reply<'addMember'> {
    return this._client.request(h.addMember, { params: { organization_id: orgId }, body }, options);
  }

  /** Notifies every admin of the organization. */
  createJoinRequest(
    orgId: OrganizationId,
    body: TestJoinRequestCreateParams,
    options?: TestHelperOptions,
  ): Reply<'createJoinRequest'> {
    return this._client.request(h.createJoinRequest, { params: { organization_id: orgId }, body }, options);
  }

  /** Turns the organization's subscription on or off (`{ active }`). */
  setSubscription(
    orgId: OrganizationId,
    body: TestSubscriptionSetParams,
    options?: TestHelperOptions,
  ): Reply<'setSubscription'> {
    return this._client.request(h.setSubscription, { params: { organization_id: orgId }, body }, options);
  }

  /** Adds a submission to the collab (`submissions_count` + 1). */
  createSubmission(
    orgId: OrganizationId,
    id: CollabId,
    options?: TestHelperOptions,
  ): Reply<'createSubmission'> {
    return this._client.request(h.createSubmission, { params: { organization_id: orgId, id } }, options);
  }

  /** Forces a state, e.g. `published` (the marketplace's review). */
  setCollabState(
    orgId: OrganizationId,
    id: CollabId,
    body: TestCollabStateSetParams,
    options?: TestHelperOptions,
  ): Reply<'setCollabState'> {
    return this._client.request(h.setCollabState, { params: { organization_id: orgId, id }, body }, options);
  }

  /** Funds the campaign: `total_budget_amount` and `unused_amount` grow by `amount` (minor unit of its currency). */
  createFunding(
    orgId: OrganizationId,
    id: CampaignId,
    body: TestFundingCreateParams,
    options?: TestHelperOptions,
  ): Reply<'createFunding'> {
    return this._client.request(h.createFunding, { params: { organization_id: orgId, id }, body }, options);
  }

  /** Forces a status, e.g. `finished`. */
  setCampaignStatus(
    orgId: OrganizationId,
    id: CampaignId,
    body: TestCampaignStatusSetParams,
    options?: TestHelperOptions,
  ): Reply<'setCampaignStatus'> {
    return this._client.request(
      h.setCampaignStatus,
      { params: { organization_id: orgId, id }, body },
      options,
    );
  }

  /** Sets the account's stats and status as a sync would; `last_synced_at` is set. */
  syncSocialAccount(
    id: SocialAccountId,
    body: TestSocialAccountSyncParams,
    options?: TestHelperOptions,
  ): Reply<'syncSocialAccount'> {
    return this._client.request(h.syncSocialAccount, { params: { id }, body }, options);
  }

  /** Sends the user a notification of the given `type`. */
  createNotification(
    userId: UserId,
    body: TestNotificationCreateParams,
    options?: TestHelperOptions,
  ): Reply<'createNotification'> {
    return this._client.request(h.createNotification, { params: { user_id: userId }, body }, options);
  }

  /** Subscribes a device of the user to pushes (`push_subscription_count` + 1). */
  createPushSubscription(userId: UserId, options?: TestHelperOptions): Reply<'createPushSubscription'> {
    return this._client.request(h.createPushSubscription, { params: { user_id: userId } }, options);
  }

  /** Empties the sandbox: every user, organization and token (theirs stop working) and every upload. */
  reset(options?: TestHelperOptions): APIPromise<void> {
    return this._client.request(h.reset, {}, options);
  }
}
