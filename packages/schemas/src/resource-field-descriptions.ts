/**
 * What each field of a resource the API returns means, by the resource's component id
 * (`component()`; `User`, embedded in a membership, by its schema's name). Written once, here:
 * - the OpenAPI document and the MCP server's resource schemas give each as its property's
 *   description ({@link withFieldDescriptions});
 * - `field-docs.ts`, written from it, gives each as the JSDoc an editor shows on hover over that
 *   field of the resource's type (`Collab`, what `client.collabs.retrieve()` resolves to).
 * A test checks that every field of every resource has one, and that each names a field.
 */
import * as z from 'zod';
import { contractRegistry } from './components.js';
import { User } from './resources/user.js';

/** When a resource was created and last changed. */
const stamps = {
  created_at: 'When it was created (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z)',
  updated_at: 'When it last changed (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z)',
};

/** Where a collab or a campaign is offered (`marketFields` of resources/organization-resource.ts). */
const market = {
  currency:
    'Lowercase ISO 4217 code, e.g. usd; its amounts are in its minor unit (cents for usd, yen for jpy)',
  countries: 'Uppercase ISO 3166-1 alpha-2 codes of the countries it targets, e.g. ["US","CA"]',
  website: "The product's website exactly as it was sent (http/https), or null",
};

/** The last fields of a collab or a campaign (`pageFields` of resources/organization-resource.ts). */
const page = {
  ...stamps,
  url: 'Its JSON address',
  banner_image_url: 'Address of its banner image, or null when it has none',
};

/** The brief of a collab or campaign as shown (not listed). */
const brief = { brief: 'What creators are asked for: the Markdown sent, rendered to sanitized HTML' };

const collabSummary = {
  id: "The collab's id: the `:id` of its URLs",
  name: 'Display name',
  state:
    'draft (new; only a draft can be deleted), submitted_for_review (after submit), published (after the ' +
    "marketplace's review), paused (after pause; unpause publishes it again)",
  ...market,
  require_boosted_ads: 'Creators must allow their post to be boosted as an ad',
  requires_product_shipment: 'A product sample is shipped to the creator',
  submissions_count: 'Submissions creators have made to it; a collab with any cannot be deleted',
  completed_count: 'Submissions completed',
  published_at: 'When it was first published, or null if it never was',
  ...page,
};

const campaignSummary = {
  id: "The campaign's id: the `:id` of its URLs",
  name: 'Display name',
  status:
    'draft (new; only a draft without fundings can be deleted), active (after publish, which needs a ' +
    'budget), paused (after pause; resume makes it active again), finished',
  ...market,
  content_type: 'Kind of content asked for, e.g. video',
  category: 'Category of the campaign, e.g. general',
  platform_ids: 'Platforms the content is posted on',
  platform_music_id: 'A sound or track id on the platform that creators must use, or null',
  cpm_amount: 'Pay per 1 000 views, in the minor unit of `currency`; fixed once published',
  min_payout_amount: 'Smallest payout per submission, in the minor unit of `currency`; fixed once published',
  max_payout_amount:
    'Largest payout per submission, in the minor unit of `currency`; 0 means no maximum; fixed once published',
  base_reward_amount:
    'Fixed reward per accepted submission, in the minor unit of `currency`; fixed once published',
  total_budget_amount: 'Everything funded so far, in the minor unit of `currency`; 0 on create (read-only)',
  used_amount:
    'Of the budget, what has been paid out to creators, in the minor unit of `currency` (read-only)',
  unused_amount: 'Of the budget, what is left: total_budget_amount - used_amount (read-only)',
  view_count: "Views of the campaign's content (read-only)",
  submissions_count: 'Submissions creators have made to it (read-only)',
  published_at: 'When it was first published (made active), or null if it never was',
  paused_at: 'While it is paused, when it was paused; null otherwise',
  ...page,
};

const accessToken = {
  id: "The token's id (not its value, which is shown only when it is created)",
  description: 'What the token is for, as its creator wrote it',
  permission: 'read (GET only) or write (every method)',
  created_at: stamps.created_at,
  last_used_at: 'Null until the token is first used; then updated at most once a minute',
};

export const RESOURCE_FIELD_DESCRIPTIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Organization: {
    id: "The organization's id: the `:id` (or `:organization_id`) of its URLs",
    name: 'Display name',
    privacy_setting: 'Who can find the organization: public, private or restricted',
    website: 'Its website exactly as it was sent (http/https), or null',
    ...stamps,
    url: 'Its JSON address',
    logo_url: 'Address of its logo; omitted when no logo is attached',
  },
  CollabSummary: collabSummary,
  Collab: { ...collabSummary, ...brief },
  CampaignSummary: campaignSummary,
  Campaign: { ...campaignSummary, ...brief },
  Membership: {
    id: "The membership's id: the `:id` of its URLs (not the user's id)",
    role: 'admin (manages the organization, its collabs, campaigns and members) or member',
    is_owner: 'True for the organization owner, who cannot be removed or demoted',
    ...stamps,
    user: 'The member',
  },
  User: {
    id: "The user's id",
    name: "The user's name",
    email: "The user's e-mail address",
  },
  AccessToken: accessToken,
  AccessTokenWithSecret: {
    ...accessToken,
    token:
      'The token itself (mkt_…), sent as `Authorization: Bearer <token>`: shown this once, keep it secret',
  },
  SocialAccount: {
    id: "The social account's id: the `:id` of its URLs",
    platform_id: 'The platform: youtube, x, twitch, tiktok or instagram',
    account_url: "The account's https URL on the platform; an account is connected once across all users",
    uid: 'The handle or channel on the platform, read from account_url',
    status: 'pending (new), verified or failed',
    subscriber_count: 'Subscribers or followers, from the latest snapshot; null until the first sync',
    view_count: 'Views, from the latest snapshot; null until the first sync',
    video_count: 'Videos or posts, from the latest snapshot; null until the first sync',
    likes_count: 'Likes, from the latest snapshot; null until the first sync',
    engagement_rate: 'A decimal number written as a string, e.g. "4.25"; null until the first sync',
    last_synced_at: 'When the latest snapshot was taken, or null before the first sync',
    ...stamps,
    url: 'Its JSON address',
  },
  Address: {
    id: "The address's id",
    address_one: 'Street and number',
    address_two: 'Apartment, suite, etc.; null for none',
    city: 'City',
    state: 'State, province or region',
    postal_code: 'Postal or ZIP code',
    country_code: 'Uppercase ISO 3166-1 alpha-2 country code, e.g. US',
    ...stamps,
  },
  NotificationSettings: {
    push_notifications_enabled: 'When false, delivery is suppressed but device subscriptions stay registered',
    push_subscription_count: 'Number of devices currently subscribed for web push',
  },
  Notification: {
    id: "The notification's id",
    type: 'Name of the notifier kind; clients dispatch on it',
    params:
      'What the kind says, by name: Membership::JoinRequestReceivedNotifier has user_name and organization_name',
    record_type: 'Type of the resource it is about, e.g. Membership::JoinRequest',
    record_id: 'Id of the resource it is about',
    seen_at: 'When the user first saw it, or null',
    read_at: 'When the user read it, or null',
    created_at: 'When it was sent (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z)',
  },
  TestUserCreated: {
    user: 'The new user',
    access_token: 'An access token of the user, with its value (shown this once)',
  },
  TestJoinRequest: {
    id: "The join request's id",
    user_id: 'Who asks to join',
    organization_id: 'The organization asked',
    created_at: stamps.created_at,
  },
  TestSubscription: {
    active: 'The organization has an active subscription (it cannot be deleted while it has one)',
  },
  TestSubmission: {
    id: "The submission's id",
    created_at: stamps.created_at,
  },
  TestFunding: {
    id: "The funding's id",
    amount:
      "Added to the campaign's total_budget_amount and unused_amount, in the minor unit of its currency",
    created_at: stamps.created_at,
  },
  TestPushSubscription: {
    id: "The push subscription's id (one more in the user's push_subscription_count)",
  },
};

/** The entry of `schema` in {@link RESOURCE_FIELD_DESCRIPTIONS}, if it is a resource the API returns. */
export function resourceFieldDescriptions(schema: z.ZodType): Readonly<Record<string, string>> | undefined {
  const name = schema === User ? 'User' : contractRegistry.get(schema)?.id;
  return name === undefined ? undefined : RESOURCE_FIELD_DESCRIPTIONS[name];
}

type Json = Record<string, unknown>;

/**
 * `json`, the JSON Schema of `schema` (a resource, a list of them, either nullable), with each
 * field's description from {@link RESOURCE_FIELD_DESCRIPTIONS}, also in the objects within (a
 * member's `user`), in place of what it said: what the field means where it stands, not what its
 * type is elsewhere. A copy; a `$ref`'s target is described where it is defined.
 */
export function withFieldDescriptions(json: Json, schema: z.ZodType): Json {
  const out: Json = { ...json };
  const inner =
    schema instanceof z.ZodNullable || schema instanceof z.ZodOptional
      ? (schema.unwrap() as z.ZodType)
      : schema;
  if (Array.isArray(out.anyOf))
    out.anyOf = out.anyOf.map((branch: Json) => withFieldDescriptions(branch, inner));
  if (inner instanceof z.ZodArray && typeof out.items === 'object' && out.items !== null)
    out.items = withFieldDescriptions(out.items as Json, inner.element as z.ZodType);
  if (!(inner instanceof z.ZodObject) || typeof out.properties !== 'object' || out.properties === null)
    return out;
  const described = resourceFieldDescriptions(inner);
  const shape = inner.shape as Record<string, z.ZodType>;
  out.properties = Object.fromEntries(
    Object.entries(out.properties as Record<string, Json>).map(([field, property]) => {
      const nested = shape[field] ? withFieldDescriptions(property, shape[field]) : property;
      const description = described?.[field];
      return [field, description === undefined ? nested : { ...nested, description }];
    }),
  );
  return out;
}
