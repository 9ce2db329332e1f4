// What an editor shows on hover over a call's fields and its result's (test/hover.test.ts reads it; never run).
import type {
  Endpoint,
  TestFunding,
  TestJoinRequest,
  TestPushSubscription,
  TestSubmission,
  TestSubscription,
  TestUserCreated,
} from '@app/schemas';
import {
  type AccessToken,
  type AccessTokenWithSecret,
  type Address,
  type Campaign,
  type CampaignSummary,
  type Collab,
  type CollabSummary,
  type endpoints,
  type Item,
  Marketplace,
  type Membership,
  type Notification,
  type NotificationSettings,
  type Organization,
  OrganizationId,
  type Result,
  type SocialAccount,
  type testHelperEndpoints,
  type User,
} from '../../src/index.js';

const client = new Marketplace({ token: 't', baseUrl: 'http://x' });
const orgId = OrganizationId.parse('abcdefghijkl');
export const calls = [
  () => client.organizations.list({ page: 2 }),
  () => client.organizations.create({ name: 'A', privacy_setting: 'public' }),
  () => client.campaigns.create(orgId, { cpm_amount: 500, currency: 'usd', max_payout_amount: 0 }),
  () => client.campaigns.update(orgId, orgId as never, { base_reward_amount: 100 }),
  () => client.collabs.create(orgId, { countries: ['US'] }, { website: 'https://acme.example' }),
  () => client.me.accessTokens.create({ description: 'ci', permission: 'read' }),
];

export async function results() {
  const campaign = await client.campaigns.retrieve(orgId, 'c' as never);
  const collab = await client.collabs.retrieve(orgId, 'c' as never);
  for await (const member of client.members.list(orgId))
    return [campaign.unused_amount, collab.state, member.user.email];
}

// Each resource type, as an editor shows it on hover over its name.
export type Resources = {
  AccessToken: AccessToken;
  AccessTokenWithSecret: AccessTokenWithSecret;
  Address: Address;
  Campaign: Campaign;
  CampaignSummary: CampaignSummary;
  Collab: Collab;
  CollabSummary: CollabSummary;
  Membership: Membership;
  Notification: Notification;
  NotificationSettings: NotificationSettings;
  Organization: Organization;
  SocialAccount: SocialAccount;
  User: User;
  TestFunding: TestFunding;
  TestJoinRequest: TestJoinRequest;
  TestPushSubscription: TestPushSubscription;
  TestSubmission: TestSubmission;
  TestSubscription: TestSubscription;
  TestUserCreated: TestUserCreated;
};

// What `client.request(endpoint)` and `client.list(endpoint)` resolve to, by endpoint.
export function typedResults(
  shownCollab: Result<typeof endpoints.collabs.retrieve>,
  listedMember: Item<typeof endpoints.members.list>,
  shownAddress: Result<typeof endpoints.address.retrieve>,
) {
  return [shownCollab.state, listedMember.user.email, shownAddress.city];
}
type Answers<Group> = { [Call in keyof Group]: Group[Call] extends Endpoint ? Result<Group[Call]> : never };
export type EndpointResults = { [Name in keyof typeof endpoints]: Answers<(typeof endpoints)[Name]> } & {
  testHelpers: Answers<typeof testHelperEndpoints>;
};
