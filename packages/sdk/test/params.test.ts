/**
 * Every request payload and query of the table has a name exported from `@app/sdk` (issue #29:
 * integrators wrote `Payload<typeof endpoints…>`), equal to what the method takes. The types are
 * checked by `tsc` (the root `pnpm typecheck` includes this file); the list is checked here
 * against the table, so an endpoint added with a body or a query and no name fails.
 */
import {
  endpoints,
  type testHelperEndpoints as h,
  publicEndpoints,
  testHelperEndpointList,
} from '@app/schemas';
import { describe, expect, expectTypeOf, test } from 'vitest';
import type {
  AccessTokenCreateParams,
  AccessTokenListParams,
  AddressUpdateParams,
  CampaignCreateParams,
  CampaignListParams,
  CampaignUpdateParams,
  CollabCreateParams,
  CollabCreateQueryParams,
  CollabListParams,
  CollabUpdateParams,
  Marketplace,
  MemberListParams,
  MemberUpdateParams,
  NotificationListParams,
  NotificationSettingsUpdateParams,
  OrganizationCreateParams,
  OrganizationListParams,
  OrganizationUpdateParams,
  Payload,
  Query,
  SocialAccountCreateParams,
  SocialAccountListParams,
  TestCampaignStatusSetParams,
  TestCollabStateSetParams,
  TestFundingCreateParams,
  TestJoinRequestCreateParams,
  TestMemberCreateParams,
  TestNotificationCreateParams,
  TestSocialAccountSyncParams,
  TestSubscriptionSetParams,
  TestUserCreateParams,
} from '../src/index.js';

/** A value of each named type, by the endpoint it is for (`#query` for a query beside a body). */
const named = {
  'organizations.list': { page: 2 } satisfies OrganizationListParams,
  'organizations.create': { name: 'Acme' } satisfies OrganizationCreateParams,
  'organizations.update': { name: 'Acme 2' } satisfies OrganizationUpdateParams,
  'collabs.list': {} satisfies CollabListParams,
  'collabs.create': { name: 'Launch' } satisfies CollabCreateParams,
  'collabs.create#query': { website: 'https://shop.example' } satisfies CollabCreateQueryParams,
  'collabs.update': { brief: '# Hi' } satisfies CollabUpdateParams,
  'campaigns.list': {} satisfies CampaignListParams,
  'campaigns.create': { name: 'Reels', cpm_amount: 250 } satisfies CampaignCreateParams,
  'campaigns.update': { platform_ids: ['youtube'] } satisfies CampaignUpdateParams,
  'members.list': {} satisfies MemberListParams,
  'members.update': { role: 'admin' } satisfies MemberUpdateParams,
  'socialAccounts.list': {} satisfies SocialAccountListParams,
  'socialAccounts.create': {
    platform_id: 'youtube',
    account_url: 'https://youtube.com/@acme',
  } satisfies SocialAccountCreateParams,
  'address.update': { city: 'Oslo' } satisfies AddressUpdateParams,
  'notificationSettings.update': {
    push_notifications_enabled: false,
  } satisfies NotificationSettingsUpdateParams,
  'notifications.list': {} satisfies NotificationListParams,
  'accessTokens.list': {} satisfies AccessTokenListParams,
  'accessTokens.create': { description: 'CI', permission: 'read' } satisfies AccessTokenCreateParams,
  'testHelpers.createUser': {
    user: { name: 'Ada', email: 'ada@example.com' },
  } satisfies TestUserCreateParams,
  'testHelpers.addMember': { user_id: 'u1', role: 'member' } satisfies TestMemberCreateParams,
  'testHelpers.createJoinRequest': { user_id: 'u1' } satisfies TestJoinRequestCreateParams,
  'testHelpers.setSubscription': { active: true } satisfies TestSubscriptionSetParams,
  'testHelpers.setCollabState': { state: 'published' } satisfies TestCollabStateSetParams,
  'testHelpers.createFunding': { amount: 10_000 } satisfies TestFundingCreateParams,
  'testHelpers.setCampaignStatus': { status: 'active' } satisfies TestCampaignStatusSetParams,
  'testHelpers.syncSocialAccount': { subscriber_count: 10 } satisfies TestSocialAccountSyncParams,
  'testHelpers.createNotification': {
    type: 'Membership::JoinRequestReceivedNotifier',
    record_type: 'Membership::JoinRequest',
    record_id: 'jr1',
  } satisfies TestNotificationCreateParams,
};

describe('named request types', () => {
  test('one for every body and every query of the table', () => {
    const needed = [...publicEndpoints, ...testHelperEndpointList].flatMap((e) => {
      const query = Object.keys(e.query.shape).length > 0;
      if (e.body) return query ? [e.name, `${e.name}#query`] : [e.name];
      return query ? [e.name] : [];
    });
    expect(Object.keys(named).sort()).toEqual(needed.sort());
  });

  test('each is the type the table gives and the method takes', () => {
    const o = endpoints.organizations;
    expectTypeOf<OrganizationListParams>().toEqualTypeOf<Query<typeof o.list>>();
    expectTypeOf<OrganizationCreateParams>().toEqualTypeOf<Payload<typeof o.create>>();
    expectTypeOf<OrganizationUpdateParams>().toEqualTypeOf<Payload<typeof o.update>>();
    expectTypeOf<CollabCreateParams>().toEqualTypeOf<Payload<typeof endpoints.collabs.create>>();
    expectTypeOf<CollabCreateQueryParams>().toEqualTypeOf<Query<typeof endpoints.collabs.create>>();
    expectTypeOf<CollabUpdateParams>().toEqualTypeOf<Payload<typeof endpoints.collabs.update>>();
    expectTypeOf<CampaignCreateParams>().toEqualTypeOf<Payload<typeof endpoints.campaigns.create>>();
    expectTypeOf<CampaignUpdateParams>().toEqualTypeOf<Payload<typeof endpoints.campaigns.update>>();
    expectTypeOf<MemberUpdateParams>().toEqualTypeOf<Payload<typeof endpoints.members.update>>();
    expectTypeOf<SocialAccountCreateParams>().toEqualTypeOf<
      Payload<typeof endpoints.socialAccounts.create>
    >();
    expectTypeOf<AddressUpdateParams>().toEqualTypeOf<Payload<typeof endpoints.address.update>>();
    expectTypeOf<NotificationSettingsUpdateParams>().toEqualTypeOf<
      Payload<typeof endpoints.notificationSettings.update>
    >();
    expectTypeOf<AccessTokenCreateParams>().toEqualTypeOf<Payload<typeof endpoints.accessTokens.create>>();
    expectTypeOf<TestUserCreateParams>().toEqualTypeOf<Payload<typeof h.createUser>>();
    expectTypeOf<TestSocialAccountSyncParams>().toEqualTypeOf<Payload<typeof h.syncSocialAccount>>();
    expectTypeOf<
      Parameters<Marketplace['organizations']['create']>[0]
    >().toEqualTypeOf<OrganizationCreateParams>();
    expectTypeOf<Parameters<Marketplace['collabs']['create']>[2]>().toEqualTypeOf<
      CollabCreateQueryParams | undefined
    >();
    expectTypeOf<
      Parameters<Marketplace['me']['address']['update']>[0]
    >().toEqualTypeOf<AddressUpdateParams>();
  });
});
