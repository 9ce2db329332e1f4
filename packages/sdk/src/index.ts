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
export {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  MarketplaceError,
  NotAcceptableError,
  NotFoundError,
  PermissionDeniedError,
  RequestValidationError,
  ResponseValidationError,
  ServiceUnavailableError,
  ValidationError,
} from './core/error.js';
export type { Fetch, LogDetails, Logger } from './core/logging.js';
export { Page, type PageInfo, PagePromise } from './core/pagination.js';
export type { Item, Params, Payload, Query, RequestInput, Result } from './core/types.js';
export type { Campaigns } from './resources/campaigns.js';
export type { Collabs } from './resources/collabs.js';
export type {
  AccessTokens,
  Address as AddressResource,
  Me,
  NotificationSettings as NotificationSettingsResource,
  Notifications,
  SocialAccounts,
} from './resources/me/index.js';
export type { Members } from './resources/members.js';
export type { Organizations } from './resources/organizations.js';
export type { TestHelpers } from './resources/test-helpers.js';
export { VERSION } from './version.js';
