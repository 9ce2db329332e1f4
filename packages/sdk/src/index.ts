export type {
  AccessToken,
  AccessTokenWithSecret,
  Address,
  Campaign,
  CampaignSummary,
  Collab,
  CollabSummary,
  FieldErrors,
  Membership,
  Notification,
  NotificationSettings,
  Organization,
  SocialAccount,
  User,
} from '@app/schemas';
// Resource shapes and branded ids come from the contract; the id schemas turn a stored string
// back into an id: `CollabId.parse(row.collab_id)`.
export {
  AccessTokenId,
  AddressId,
  CampaignId,
  CollabId,
  endpoints,
  MembershipId,
  NotificationId,
  OrganizationId,
  REQUEST_ID_HEADER,
  SocialAccountId,
  testHelperEndpoints,
  UserId,
} from '@app/schemas';
export {
  type ClientOptions,
  type ListOptions,
  Marketplace,
  Marketplace as default,
  type RequestOptions,
  type TestHelperOptions,
} from './client.js';
export { APIPromise, type APIResponse } from './core/api-promise.js';
export { type CachedResponse, type CacheStore, LruCache } from './core/cache.js';
export type { Fetch, LogDetails, Logger } from './core/logging.js';
export { Page, type PageInfo, PagePromise } from './core/pagination.js';
export type { Item, Params, Payload, Query, RequestInput, Result } from './core/types.js';
export type { FileValue } from './core/uploads.js';
// The error classes: one list, that of `@app/sdk/errors`.
export * from './errors.js';
// Each resource, and a name for every request payload and query it takes.
export type {
  CampaignCreateParams,
  CampaignListParams,
  Campaigns,
  CampaignUpdateParams,
} from './resources/campaigns.js';
export type {
  CollabCreateParams,
  CollabCreateQueryParams,
  CollabListParams,
  Collabs,
  CollabUpdateParams,
} from './resources/collabs.js';
export type { AccessTokenCreateParams, AccessTokenListParams } from './resources/me/access-tokens.js';
export type { AddressUpdateParams } from './resources/me/address.js';
export type {
  AccessTokens,
  Address as AddressResource,
  Me,
  NotificationSettings as NotificationSettingsResource,
  Notifications,
  SocialAccounts,
} from './resources/me/index.js';
export type { NotificationSettingsUpdateParams } from './resources/me/notification-settings.js';
export type { NotificationListParams } from './resources/me/notifications.js';
export type { SocialAccountCreateParams, SocialAccountListParams } from './resources/me/social-accounts.js';
export type { MemberListParams, Members, MemberUpdateParams } from './resources/members.js';
export type {
  OrganizationCreateParams,
  OrganizationListParams,
  Organizations,
  OrganizationUpdateParams,
} from './resources/organizations.js';
export type {
  TestCampaignStatusSetParams,
  TestCollabStateSetParams,
  TestFundingCreateParams,
  TestHelpers,
  TestJoinRequestCreateParams,
  TestMemberCreateParams,
  TestNotificationCreateParams,
  TestSocialAccountSyncParams,
  TestSubscriptionSetParams,
  TestUserCreateParams,
} from './resources/test-helpers.js';
export { VERSION } from './version.js';
