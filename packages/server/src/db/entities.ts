import { AccessToken } from '../modules/access-tokens/access-token.entity.js';
import { Address } from '../modules/address/address.entity.js';
import { Campaign } from '../modules/campaigns/campaign.entity.js';
import { Funding } from '../modules/campaigns/funding.entity.js';
import { Collab } from '../modules/collabs/collab.entity.js';
import { Submission } from '../modules/collabs/submission.entity.js';
import { IdempotencyKey } from '../modules/idempotency/idempotency-key.entity.js';
import { JoinRequest } from '../modules/members/join-request.entity.js';
import { Membership } from '../modules/members/membership.entity.js';
import { Notification } from '../modules/notifications/notification.entity.js';
import { PushSubscription } from '../modules/notifications/push-subscription.entity.js';
import { Organization } from '../modules/organizations/organization.entity.js';
import { SocialAccount } from '../modules/social-accounts/social-account.entity.js';
import { User } from '../modules/users/user.entity.js';
import { RowCount } from './row-count.entity.js';

/** Every entity, for the ORM and the schema generator. */
export const entities = [
  User,
  AccessToken,
  Organization,
  Membership,
  JoinRequest,
  SocialAccount,
  Address,
  Notification,
  PushSubscription,
  Collab,
  Submission,
  Campaign,
  Funding,
  IdempotencyKey,
  RowCount,
];
