import { testHelperEndpoints } from '@app/schemas';
import { defineRoutes, type Route } from './http/route.js';
import { accessTokenRoutes } from './modules/access-tokens/access-tokens.routes.js';
import { addressRoutes } from './modules/address/address.routes.js';
import { campaignRoutes } from './modules/campaigns/campaigns.routes.js';
import { campaignTestHelpers } from './modules/campaigns/campaigns.sandbox.js';
import { collabRoutes } from './modules/collabs/collabs.routes.js';
import { collabTestHelpers } from './modules/collabs/collabs.sandbox.js';
import { memberRoutes } from './modules/members/members.routes.js';
import { memberTestHelpers } from './modules/members/members.sandbox.js';
import { notificationSettingsRoutes } from './modules/notifications/notification-settings.routes.js';
import { notificationRoutes } from './modules/notifications/notifications.routes.js';
import { notificationTestHelpers } from './modules/notifications/notifications.sandbox.js';
import { organizationRoutes } from './modules/organizations/organizations.routes.js';
import { organizationTestHelpers } from './modules/organizations/organizations.sandbox.js';
import { sandboxTestHelpers } from './modules/sandbox/sandbox.sandbox.js';
import { socialAccountRoutes } from './modules/social-accounts/social-accounts.routes.js';
import { socialAccountTestHelpers } from './modules/social-accounts/social-accounts.sandbox.js';
import { userTestHelpers } from './modules/users/users.sandbox.js';

/** Every route of the public API, one group per resource module. */
export const publicRoutes: Route[] = [
  ...organizationRoutes,
  ...memberRoutes,
  ...collabRoutes,
  ...campaignRoutes,
  ...socialAccountRoutes,
  ...addressRoutes,
  ...notificationSettingsRoutes,
  ...notificationRoutes,
  ...accessTokenRoutes,
];

/** The sandbox set-up API (decisions.md §4); registered only when its key is configured. */
export const testHelperRoutes: Route[] = defineRoutes<typeof testHelperEndpoints, null>(
  'testHelpers',
  testHelperEndpoints,
  {
    ...userTestHelpers,
    ...memberTestHelpers,
    ...organizationTestHelpers,
    ...collabTestHelpers,
    ...campaignTestHelpers,
    ...socialAccountTestHelpers,
    ...notificationTestHelpers,
    ...sandboxTestHelpers,
  },
);
