import type { AccessToken, AccessTokenWithSecret } from './resources/access-token.js';
import type { Address } from './resources/address.js';
import type { Campaign, CampaignSummary } from './resources/campaign.js';
import type { Collab, CollabSummary } from './resources/collab.js';
import type { Membership } from './resources/membership.js';
import type { Notification, NotificationSettings } from './resources/notification.js';
import type { Organization } from './resources/organization.js';
import type { SocialAccount } from './resources/social-account.js';
import type {
  TestFunding,
  TestJoinRequest,
  TestPushSubscription,
  TestSubmission,
  TestSubscription,
  TestUserCreated,
} from './resources/test-helpers.js';
import type { User } from './resources/user.js';

/**
 * Each resource type by its component id, as `ResourceFieldDocs` lists them: the SDK names an
 * endpoint's answer after the one whose fields it has (`Result<typeof endpoints.collabs.retrieve>`
 * is `Collab`), so that its fields show their descriptions on hover.
 */
export interface ResourceTypes {
  Organization: Organization;
  CollabSummary: CollabSummary;
  Collab: Collab;
  CampaignSummary: CampaignSummary;
  Campaign: Campaign;
  Membership: Membership;
  User: User;
  AccessToken: AccessToken;
  AccessTokenWithSecret: AccessTokenWithSecret;
  SocialAccount: SocialAccount;
  Address: Address;
  NotificationSettings: NotificationSettings;
  Notification: Notification;
  TestUserCreated: TestUserCreated;
  TestJoinRequest: TestJoinRequest;
  TestSubscription: TestSubscription;
  TestSubmission: TestSubmission;
  TestFunding: TestFunding;
  TestPushSubscription: TestPushSubscription;
}
