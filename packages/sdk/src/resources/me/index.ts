import type { Marketplace } from '../../client.js';
import { AccessTokens } from './access-tokens.js';
import { Address } from './address.js';
import { NotificationSettings } from './notification-settings.js';
import { Notifications } from './notifications.js';
import { SocialAccounts } from './social-accounts.js';

/** The authenticated user's own resources (`/me/...`). */
export class Me {
  readonly socialAccounts: SocialAccounts;
  readonly address: Address;
  readonly notificationSettings: NotificationSettings;
  readonly notifications: Notifications;
  readonly accessTokens: AccessTokens;

  constructor(client: Marketplace) {
    this.socialAccounts = new SocialAccounts(client);
    this.address = new Address(client);
    this.notificationSettings = new NotificationSettings(client);
    this.notifications = new Notifications(client);
    this.accessTokens = new AccessTokens(client);
  }
}

export { AccessTokens, Address, NotificationSettings, Notifications, SocialAccounts };
