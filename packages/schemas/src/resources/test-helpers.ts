/**
 * Payloads and responses of the reference server's test helpers (decisions.md §4): the sandbox
 * set-up API that makes what the real service makes through its web app.
 */
import * as z from 'zod';
import { component } from '../components.js';
import type { Described } from '../described.js';
import * as ex from '../examples.js';
import type { ResourceFieldDocs } from '../field-docs.js';
import { amountInput, idOf, text, timestamp, typeError } from '../primitives.js';
import { AccessTokenWithSecret, Permission } from './access-token.js';
import { CampaignStatus } from './campaign.js';
import { CollabState } from './collab.js';
import { Role } from './membership.js';
import { OrganizationId } from './organization.js';
import { SocialAccountStatus } from './social-account.js';
import { User, UserId } from './user.js';

export const TestUserCreate = z.object({
  user: z.object(
    { name: text(100), email: z.email({ error: 'is not an e-mail address' }).max(254) },
    { error: (issue) => (issue.input === undefined ? 'is missing' : 'must be an object') },
  ),
  access_token: z
    .object({ description: text(200).optional(), permission: Permission.default('write') })
    .default({ permission: 'write' }),
});
export const TestUserCreated = component(z.object({ user: User, access_token: AccessTokenWithSecret }), {
  id: 'TestUserCreated',
  description: 'A user made by the test helpers, with an access token (its value shown this once).',
  examples: [
    {
      user: ex.membership.user,
      access_token: { ...ex.accessToken, token: `mkt_${'A'.repeat(43)}000000` },
    },
  ],
});
export type TestUserCreated = Described<
  Omit<z.infer<typeof TestUserCreated>, 'user' | 'access_token'> & {
    user: User;
    access_token: AccessTokenWithSecret;
  },
  ResourceFieldDocs['TestUserCreated']
>;

export const TestMemberCreate = z.object({ user_id: z.string().min(1), role: Role });

export const JoinRequestId = idOf('JoinRequestId', 'join request');
export const TestJoinRequestCreate = z.object({ user_id: z.string().min(1) });
export const TestJoinRequest = component(
  z.object({ id: JoinRequestId, user_id: UserId, organization_id: OrganizationId, created_at: timestamp }),
  {
    id: 'TestJoinRequest',
    description: 'A join request made by the test helpers.',
    examples: [
      {
        id: 'Jr5Kd8Wq2Lm1',
        user_id: ex.membership.user.id,
        organization_id: ex.organization.id,
        created_at: '2026-11-21T10:00:00.000Z',
      },
    ],
  },
);
export type TestJoinRequest = Described<
  z.infer<typeof TestJoinRequest>,
  ResourceFieldDocs['TestJoinRequest']
>;

export const TestSubscriptionSet = z.object({ active: z.boolean() });
export const TestSubscription = component(z.object({ active: z.boolean() }), {
  id: 'TestSubscription',
  description: "An organization's subscription as the test helpers set it.",
  examples: [{ active: true }],
});
export type TestSubscription = Described<
  z.infer<typeof TestSubscription>,
  ResourceFieldDocs['TestSubscription']
>;

export const TestSubmission = component(z.object({ id: z.string(), created_at: timestamp }), {
  id: 'TestSubmission',
  description: 'A submission added to a collab by the test helpers.',
  examples: [{ id: 'Sb7Hn3Qe9Vx4', created_at: '2026-11-21T10:00:00.000Z' }],
});
export type TestSubmission = Described<z.infer<typeof TestSubmission>, ResourceFieldDocs['TestSubmission']>;

export const TestCollabStateSet = z.object({ state: CollabState });

export const TestFundingCreate = z.object({
  amount: amountInput.refine((n) => n > 0, { error: 'must be greater than 0' }),
});
export const TestFunding = component(z.object({ id: z.string(), amount: z.int(), created_at: timestamp }), {
  id: 'TestFunding',
  description:
    'A funding of a campaign made by the test helpers (amount in the minor unit of the campaign’s currency).',
  examples: [{ id: 'Fd2Mw6Yt8Kp3', amount: 10000, created_at: '2026-11-21T10:00:00.000Z' }],
});
export type TestFunding = Described<z.infer<typeof TestFunding>, ResourceFieldDocs['TestFunding']>;

export const TestCampaignStatusSet = z.object({ status: CampaignStatus });

const count = z
  .int({ error: typeError('must be a whole number') })
  .min(0, { error: 'must be greater than or equal to 0' })
  .max(Number.MAX_SAFE_INTEGER, { error: `must be less than or equal to ${Number.MAX_SAFE_INTEGER}` })
  .nullable()
  .optional();
export const TestSocialAccountSync = z.object({
  status: SocialAccountStatus.optional(),
  subscriber_count: count,
  view_count: count,
  video_count: count,
  likes_count: count,
  engagement_rate: z
    .union([
      z.number().nonnegative({ error: 'must be greater than or equal to 0' }),
      z.string().regex(/^\d+(\.\d+)?$/, {
        error: 'must be a number of at least 0, or one written as a string ("4.25")',
      }),
    ])
    .nullable()
    .optional(),
});

export const TestNotificationCreate = z.object({
  type: text(200),
  params: z.record(z.string(), z.unknown(), { error: typeError('must be an object') }).default({}),
  record_type: text(200),
  record_id: text(200),
});

export const TestPushSubscription = component(z.object({ id: z.string() }), {
  id: 'TestPushSubscription',
  description: 'A push device registered for a user by the test helpers.',
  examples: [{ id: 'Ps4Rz1Nc7Gb5' }],
});
export type TestPushSubscription = Described<
  z.infer<typeof TestPushSubscription>,
  ResourceFieldDocs['TestPushSubscription']
>;
