/**
 * The endpoint table: one entry per endpoint of the spec, plus the transitions and test helpers
 * of decisions.md. The server registers its routes from it, the SDK builds its methods on it, and
 * the OpenAPI document is generated from it.
 */
import * as z from 'zod';
import {
  type BodySpec,
  body,
  destroy,
  type Endpoint,
  list,
  type NoQuery,
  show,
  type TransitionEndpoint,
  testHelper,
  transition,
  write,
} from './endpoint.js';
import {
  AccessToken,
  AccessTokenCreate,
  AccessTokenId,
  AccessTokenWithSecret,
} from './resources/access-token.js';
import { Address, AddressUpdate } from './resources/address.js';
import {
  Campaign,
  CampaignCreate,
  CampaignId,
  CampaignSummary,
  CampaignUpdate,
} from './resources/campaign.js';
import {
  Collab,
  CollabCreate,
  CollabCreateQuery,
  CollabId,
  CollabSummary,
  CollabUpdate,
} from './resources/collab.js';
import { Membership, MembershipId, MembershipUpdate } from './resources/membership.js';
import { Notification, NotificationSettings, NotificationSettingsUpdate } from './resources/notification.js';
import {
  Organization,
  OrganizationCreate,
  OrganizationId,
  OrganizationUpdate,
} from './resources/organization.js';
import { SocialAccount, SocialAccountCreate, SocialAccountId } from './resources/social-account.js';
import {
  TestCampaignStatusSet,
  TestCollabStateSet,
  TestFunding,
  TestFundingCreate,
  TestJoinRequest,
  TestJoinRequestCreate,
  TestMemberCreate,
  TestNotificationCreate,
  TestPushSubscription,
  TestSocialAccountSync,
  TestSubmission,
  TestSubscription,
  TestSubscriptionSet,
  TestUserCreate,
  TestUserCreated,
} from './resources/test-helpers.js';
import { UserId } from './resources/user.js';

const orgParams = z.object({ id: OrganizationId });
const inOrg = z.object({ organization_id: OrganizationId });
const memberParams = z.object({ organization_id: OrganizationId, id: MembershipId });
const socialAccountParams = z.object({ id: SocialAccountId });
const accessTokenParams = z.object({ id: AccessTokenId });

/**
 * The endpoints of a resource an organization writes as drafts (collabs, campaigns): its list
 * (members, newest first), show (with the brief), create and update (admins; a banner may be
 * uploaded), delete of a draft, and its transitions, each a `303` to the show.
 */
function draftResource<
  const Noun extends string,
  Id extends z.ZodType,
  Item extends z.ZodType,
  Shown extends z.ZodType,
  Create extends BodySpec,
  Update extends BodySpec,
  Action extends string,
  Query extends z.ZodObject = NoQuery,
>(o: {
  noun: Noun;
  id: Id;
  item: Item;
  shown: Shown;
  create: Create;
  createQuery?: Query;
  update: Update;
  /**
   * Each transition's action (the last segment of its path) and summary, or its summary and when
   * it is `422` whatever the call says (`unprocessableWhen`).
   */
  transitions: Record<Action, string | { summary: string; unprocessableWhen: string }>;
}) {
  const path = `/organizations/:organization_id/${o.noun}s`;
  const params = z.object({ organization_id: OrganizationId, id: o.id });
  const retrieve = show({
    path: `${path}/:id`,
    params,
    access: 'member',
    response: o.shown,
    summary: `Show a ${o.noun} with its brief`,
  });
  const transitions = Object.fromEntries(
    Object.entries<string | { summary: string; unprocessableWhen: string }>(o.transitions).map(
      ([action, entry]) => [
        action,
        transition({
          path: `${path}/:id/${action}`,
          params,
          access: 'admin',
          ...(typeof entry === 'string' ? { summary: entry } : entry),
          show: retrieve,
        }),
      ],
    ),
  ) as Record<Action, TransitionEndpoint<typeof params, typeof retrieve>>;
  return {
    list: list({
      path,
      params: inOrg,
      access: 'member',
      item: o.item,
      summary: `${o.noun[0]?.toUpperCase()}${o.noun.slice(1)}s of an organization, newest first`,
    }),
    retrieve,
    create: write({
      method: 'POST',
      status: 201,
      path,
      params: inOrg,
      ...(o.createQuery && { query: o.createQuery }),
      access: 'admin',
      body: o.create,
      response: o.shown,
      summary: `Create a draft ${o.noun}`,
    }),
    update: write({
      method: 'PATCH',
      status: 200,
      path: `${path}/:id`,
      params,
      access: 'admin',
      body: o.update,
      response: o.shown,
      summary: `Update a ${o.noun}`,
    }),
    delete: destroy({
      path: `${path}/:id`,
      params,
      access: 'admin',
      summary: `Delete a draft ${o.noun}`,
      forbiddenWhen: `the ${o.noun} is no longer a draft`,
    }),
    ...transitions,
  };
}

export const endpoints = {
  organizations: {
    list: list({
      path: '/organizations',
      access: 'user',
      item: Organization,
      summary: "The caller's organizations, oldest first",
    }),
    retrieve: show({
      path: '/organizations/:id',
      params: orgParams,
      access: 'member',
      response: Organization,
      summary: 'Show an organization',
    }),
    create: write({
      method: 'POST',
      status: 201,
      path: '/organizations',
      access: 'user',
      body: body('organization', OrganizationCreate, { files: ['logo'] }),
      response: Organization,
      summary: 'Create an organization; the caller becomes its owner',
    }),
    update: write({
      method: 'PATCH',
      status: 200,
      path: '/organizations/:id',
      params: orgParams,
      access: 'admin',
      body: body('organization', OrganizationUpdate, { files: ['logo'] }),
      response: Organization,
      summary: 'Update an organization',
    }),
    delete: destroy({
      path: '/organizations/:id',
      params: orgParams,
      access: 'owner',
      summary: 'Delete an organization (owner only)',
      // The server's rule (organizations.service.ts): a collab or campaign in any state stands in
      // the way, and only a draft one can be deleted.
      unprocessableWhen:
        'the organization still has a collab or a campaign (in any state) or an active subscription: delete its collabs and campaigns first (only a draft can be deleted)',
    }),
  },
  collabs: draftResource({
    noun: 'collab',
    id: CollabId,
    item: CollabSummary,
    shown: Collab,
    create: body('collab', CollabCreate, { required: false, files: ['banner_image'] }),
    createQuery: CollabCreateQuery,
    update: body('collab', CollabUpdate, { files: ['banner_image'] }),
    transitions: {
      submit: 'Submit a draft collab for review',
      pause: 'Pause a published collab',
      unpause: 'Publish a paused collab again',
    },
  }),
  campaigns: draftResource({
    noun: 'campaign',
    id: CampaignId,
    item: CampaignSummary,
    shown: Campaign,
    create: body('campaign', CampaignCreate, { files: ['banner_image'] }),
    update: body('campaign', CampaignUpdate, { files: ['banner_image'] }),
    transitions: {
      // Spec: budget totals are 0 on create, funding happens separately (decisions: publish needs
      // `total_budget_amount > 0`, which is read-only; only the test helpers' fundings add to it).
      publish: {
        summary: 'Publish a draft campaign',
        unprocessableWhen:
          '`total_budget_amount` is 0: the budget is funded outside the API (no call of the API sets it)',
      },
      pause: 'Pause an active campaign',
      resume: 'Resume a paused campaign',
    },
  }),
  members: {
    list: list({
      path: '/organizations/:organization_id/members',
      params: inOrg,
      access: 'member',
      item: Membership,
      summary: 'Members, admins first',
    }),
    update: write({
      method: 'PATCH',
      status: 200,
      path: '/organizations/:organization_id/members/:id',
      params: memberParams,
      access: 'admin',
      body: body('membership', MembershipUpdate),
      response: Membership,
      summary: "Change a member's role",
    }),
    delete: destroy({
      path: '/organizations/:organization_id/members/:id',
      params: memberParams,
      access: 'admin-or-self',
      summary: 'Remove a member, or leave the organization',
    }),
  },
  socialAccounts: {
    list: list({
      path: '/me/social_accounts',
      access: 'user',
      item: SocialAccount,
      summary: "The caller's social accounts",
    }),
    retrieve: show({
      path: '/me/social_accounts/:id',
      params: socialAccountParams,
      access: 'user',
      response: SocialAccount,
      summary: 'Show a social account',
    }),
    create: write({
      method: 'POST',
      status: 201,
      path: '/me/social_accounts',
      access: 'user',
      body: body('social_account', SocialAccountCreate),
      response: SocialAccount,
      summary: 'Connect a social account by URL',
    }),
    delete: destroy({
      path: '/me/social_accounts/:id',
      params: socialAccountParams,
      access: 'user',
      summary: 'Disconnect a social account',
    }),
  },
  address: {
    retrieve: show({
      path: '/me/address',
      access: 'user',
      response: Address,
      emptyNotFound: true,
      summary: "The caller's shipping address",
    }),
    update: write({
      method: 'PATCH',
      status: 200,
      path: '/me/address',
      access: 'user',
      body: body('address', AddressUpdate),
      response: Address,
      summary: 'Create or update the shipping address',
    }),
    delete: destroy({ path: '/me/address', access: 'user', summary: 'Delete the shipping address' }),
  },
  notificationSettings: {
    retrieve: show({
      path: '/me/notification_settings',
      access: 'user',
      response: NotificationSettings,
      summary: 'Notification settings',
    }),
    update: write({
      method: 'PATCH',
      status: 200,
      path: '/me/notification_settings',
      access: 'user',
      body: body(null, NotificationSettingsUpdate),
      response: NotificationSettings,
      summary: 'Turn push notifications on or off',
    }),
  },
  notifications: {
    list: list({
      path: '/me/notifications',
      access: 'user',
      item: Notification,
      summary: 'Notification inbox, newest first',
    }),
  },
  accessTokens: {
    list: list({
      path: '/me/access_tokens',
      access: 'user',
      item: AccessToken,
      summary: 'Access token metadata',
    }),
    create: write({
      method: 'POST',
      status: 201,
      path: '/me/access_tokens',
      access: 'user',
      body: body('access_token', AccessTokenCreate),
      response: AccessTokenWithSecret,
      summary: 'Create an access token (its value is shown once)',
    }),
    delete: destroy({
      path: '/me/access_tokens/:id',
      params: accessTokenParams,
      access: 'user',
      summary: 'Revoke an access token',
    }),
  },
} as const;

const helperOrg = z.object({ organization_id: OrganizationId });
const helperCollab = z.object({ organization_id: OrganizationId, id: CollabId });
const helperCampaign = z.object({ organization_id: OrganizationId, id: CampaignId });
const helperUser = z.object({ user_id: UserId });

/** The reference server's sandbox set-up API (decisions.md §4). Not part of the real service. */
export const testHelperEndpoints = {
  createUser: testHelper({
    path: '/users',
    params: z.object({}),
    body: body(null, TestUserCreate),
    status: 201,
    response: TestUserCreated,
    summary: 'Create a user with an access token',
  }),
  addMember: testHelper({
    path: '/organizations/:organization_id/members',
    params: helperOrg,
    body: body('membership', TestMemberCreate),
    status: 201,
    response: Membership,
    summary: 'Add a user to an organization',
  }),
  createJoinRequest: testHelper({
    path: '/organizations/:organization_id/join_requests',
    params: helperOrg,
    body: body('join_request', TestJoinRequestCreate),
    status: 201,
    response: TestJoinRequest,
    summary: 'Make a join request (notifies every admin)',
  }),
  setSubscription: testHelper({
    path: '/organizations/:organization_id/subscription',
    params: helperOrg,
    body: body('subscription', TestSubscriptionSet),
    status: 200,
    response: TestSubscription,
    summary: "Set the organization's subscription",
  }),
  createSubmission: testHelper({
    path: '/organizations/:organization_id/collabs/:id/submissions',
    params: helperCollab,
    body: undefined,
    status: 201,
    response: TestSubmission,
    summary: 'Add a submission to a collab',
  }),
  setCollabState: testHelper({
    path: '/organizations/:organization_id/collabs/:id/state',
    params: helperCollab,
    body: body(null, TestCollabStateSet),
    status: 200,
    response: Collab,
    summary: "Force a collab's state",
  }),
  createFunding: testHelper({
    path: '/organizations/:organization_id/campaigns/:id/fundings',
    params: helperCampaign,
    body: body('funding', TestFundingCreate),
    status: 201,
    response: TestFunding,
    summary: 'Fund a campaign',
  }),
  setCampaignStatus: testHelper({
    path: '/organizations/:organization_id/campaigns/:id/status',
    params: helperCampaign,
    body: body(null, TestCampaignStatusSet),
    status: 200,
    response: Campaign,
    summary: "Force a campaign's status",
  }),
  syncSocialAccount: testHelper({
    path: '/social_accounts/:id/sync',
    params: z.object({ id: SocialAccountId }),
    body: body('sync', TestSocialAccountSync),
    status: 200,
    response: SocialAccount,
    summary: "Record a social account's stats snapshot",
  }),
  createNotification: testHelper({
    path: '/users/:user_id/notifications',
    params: helperUser,
    body: body('notification', TestNotificationCreate),
    status: 201,
    response: Notification,
    summary: "Put a notification in a user's inbox",
  }),
  createPushSubscription: testHelper({
    path: '/users/:user_id/push_subscriptions',
    params: helperUser,
    body: undefined,
    status: 201,
    response: TestPushSubscription,
    summary: 'Register a push device for a user',
  }),
  reset: testHelper({
    path: '/reset',
    params: z.object({}),
    body: undefined,
    status: 204,
    response: undefined,
    summary: 'Empty the sandbox: every user, organization, token and stored upload',
  }),
} as const;

export type EndpointTable = typeof endpoints;
export type TestHelperTable = typeof testHelperEndpoints;

export interface NamedEndpoint extends Endpoint {
  /** `group.action`, e.g. `collabs.create` or `testHelpers.createUser`. */
  readonly name: string;
}

function flatten(
  prefix: string | null,
  table: Record<string, Record<string, Endpoint> | Endpoint>,
): NamedEndpoint[] {
  const out: NamedEndpoint[] = [];
  for (const [group, entries] of Object.entries(table)) {
    if ('method' in entries) {
      out.push({ ...(entries as Endpoint), name: `${prefix}.${group}` });
      continue;
    }
    for (const [action, e] of Object.entries(entries as Record<string, Endpoint>)) {
      out.push({ ...e, name: `${group}.${action}` });
    }
  }
  return out;
}

/** Every endpoint of the public API, in table order. */
export const publicEndpoints: readonly NamedEndpoint[] = flatten(
  null,
  endpoints as unknown as Record<string, Record<string, Endpoint>>,
);
/** Every test-helper endpoint. */
export const testHelperEndpointList: readonly NamedEndpoint[] = flatten(
  'testHelpers',
  testHelperEndpoints as unknown as Record<string, Endpoint>,
);
