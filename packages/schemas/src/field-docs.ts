// Written from FIELD_DESCRIPTIONS (field-descriptions.ts) and RESOURCE_FIELD_DESCRIPTIONS
// (resource-field-descriptions.ts) by test/field-docs.test.ts; do not edit.
// After changing a description: `vitest run --project schemas -u`.

/**
 * Each request field's description (`FIELD_DESCRIPTIONS`) as the JSDoc an editor shows on hover:
 * the SDK's payload and query types are intersected with the fields of this interface they have.
 */
export interface FieldDocs {
  /** Page to return, from 1 (default 1); 20 items a page; a page past the last is an empty list */
  page?: unknown;
  /** The organization's id (from the organizations list) */
  organization_id?: unknown;
  /** Display name */
  name?: unknown;
  /** Who can find the organization (default private) */
  privacy_setting?: unknown;
  /** http(s) URL, returned as sent; "" or null clears it */
  website?: unknown;
  /** Lowercase ISO 4217 code, e.g. usd (uppercase is accepted); default usd */
  currency?: unknown;
  /** Uppercase ISO 3166-1 alpha-2 codes of the target countries, e.g. ["US","CA"]; default ["US"] */
  countries?: unknown;
  /** Creators must allow their post to be boosted as an ad */
  require_boosted_ads?: unknown;
  /** A product sample is shipped to the creator */
  requires_product_shipment?: unknown;
  /** Markdown; rendered to sanitized HTML on output */
  brief?: unknown;
  /** Kind of content asked for, e.g. video (default video) */
  content_type?: unknown;
  /** Category of the campaign, e.g. general (default general) */
  category?: unknown;
  /** Pay per 1 000 views, in the minor unit of `currency` (cents for usd, yen for jpy); 0 to 10^12 */
  cpm_amount?: unknown;
  /** Smallest payout per submission, in the minor unit of `currency`; at most max_payout_amount when that is above 0 */
  min_payout_amount?: unknown;
  /** Largest payout per submission, in the minor unit of `currency`; 0 means no maximum */
  max_payout_amount?: unknown;
  /** Fixed reward per accepted submission, in the minor unit of `currency` */
  base_reward_amount?: unknown;
  /** Platforms the content is posted on (duplicates dropped, so at most the 5 platforms) */
  platform_ids?: unknown;
  /** A sound or track id on the platform that creators must use; null for none */
  platform_music_id?: unknown;
  /** The new role: admin (manages the organization) or member */
  role?: unknown;
  /** The platform: youtube, x and twitch connect by URL (tiktok and instagram need the web app) */
  platform_id?: unknown;
  /** The account's https URL on the platform, e.g. https://youtube.com/@acme */
  account_url?: unknown;
  /** Street and number */
  address_one?: unknown;
  /** Apartment, suite, etc.; null or "" for none */
  address_two?: unknown;
  /** City */
  city?: unknown;
  /** State, province or region */
  state?: unknown;
  /** Postal or ZIP code */
  postal_code?: unknown;
  /** Uppercase ISO 3166-1 alpha-2 country code, e.g. US (lowercase is accepted) */
  country_code?: unknown;
  /** Send push notifications to the user's devices */
  push_notifications_enabled?: unknown;
  /** What the token is for (shown in the token list) */
  description?: unknown;
  /** read (GET only) or write (everything the user may do) */
  permission?: unknown;
}

/**
 * Each field of each resource the API returns (`RESOURCE_FIELD_DESCRIPTIONS`), by the resource's
 * component id, as the JSDoc an editor shows on hover: each resource type is its schema's
 * inferred type `Described` by its entry here (`Collab`, and so what `client.collabs.retrieve()`
 * resolves to). An interface, not JSDoc in the schemas: TypeScript keeps the JSDoc of an interface
 * in the declarations it emits (the published packages'), not that of a `z.object()`'s argument.
 */
export interface ResourceFieldDocs {
  Organization: {
    /** The organization's id: the `:id` (or `:organization_id`) of its URLs */
    id?: unknown;
    /** Display name */
    name?: unknown;
    /** Who can find the organization: public, private or restricted */
    privacy_setting?: unknown;
    /** Its website exactly as it was sent (http/https), or null */
    website?: unknown;
    /** When it was created (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    created_at?: unknown;
    /** When it last changed (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    updated_at?: unknown;
    /** Its JSON address */
    url?: unknown;
    /** Address of its logo; omitted when no logo is attached */
    logo_url?: unknown;
  };
  CollabSummary: {
    /** The collab's id: the `:id` of its URLs */
    id?: unknown;
    /** Display name */
    name?: unknown;
    /** draft (new; only a draft can be deleted), submitted_for_review (after submit), published (after the marketplace's review), paused (after pause; unpause publishes it again) */
    state?: unknown;
    /** Lowercase ISO 4217 code, e.g. usd; its amounts are in its minor unit (cents for usd, yen for jpy) */
    currency?: unknown;
    /** Uppercase ISO 3166-1 alpha-2 codes of the countries it targets, e.g. ["US","CA"] */
    countries?: unknown;
    /** The product's website exactly as it was sent (http/https), or null */
    website?: unknown;
    /** Creators must allow their post to be boosted as an ad */
    require_boosted_ads?: unknown;
    /** A product sample is shipped to the creator */
    requires_product_shipment?: unknown;
    /** Submissions creators have made to it; a collab with any cannot be deleted */
    submissions_count?: unknown;
    /** Submissions completed */
    completed_count?: unknown;
    /** When it was first published, or null if it never was */
    published_at?: unknown;
    /** When it was created (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    created_at?: unknown;
    /** When it last changed (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    updated_at?: unknown;
    /** Its JSON address */
    url?: unknown;
    /** Address of its banner image, or null when it has none */
    banner_image_url?: unknown;
  };
  Collab: {
    /** The collab's id: the `:id` of its URLs */
    id?: unknown;
    /** Display name */
    name?: unknown;
    /** draft (new; only a draft can be deleted), submitted_for_review (after submit), published (after the marketplace's review), paused (after pause; unpause publishes it again) */
    state?: unknown;
    /** Lowercase ISO 4217 code, e.g. usd; its amounts are in its minor unit (cents for usd, yen for jpy) */
    currency?: unknown;
    /** Uppercase ISO 3166-1 alpha-2 codes of the countries it targets, e.g. ["US","CA"] */
    countries?: unknown;
    /** The product's website exactly as it was sent (http/https), or null */
    website?: unknown;
    /** Creators must allow their post to be boosted as an ad */
    require_boosted_ads?: unknown;
    /** A product sample is shipped to the creator */
    requires_product_shipment?: unknown;
    /** Submissions creators have made to it; a collab with any cannot be deleted */
    submissions_count?: unknown;
    /** Submissions completed */
    completed_count?: unknown;
    /** When it was first published, or null if it never was */
    published_at?: unknown;
    /** When it was created (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    created_at?: unknown;
    /** When it last changed (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    updated_at?: unknown;
    /** Its JSON address */
    url?: unknown;
    /** Address of its banner image, or null when it has none */
    banner_image_url?: unknown;
    /** What creators are asked for: the Markdown sent, rendered to sanitized HTML */
    brief?: unknown;
  };
  CampaignSummary: {
    /** The campaign's id: the `:id` of its URLs */
    id?: unknown;
    /** Display name */
    name?: unknown;
    /** draft (new; only a draft without fundings can be deleted), active (after publish, which needs a budget), paused (after pause; resume makes it active again), finished */
    status?: unknown;
    /** Lowercase ISO 4217 code, e.g. usd; its amounts are in its minor unit (cents for usd, yen for jpy) */
    currency?: unknown;
    /** Uppercase ISO 3166-1 alpha-2 codes of the countries it targets, e.g. ["US","CA"] */
    countries?: unknown;
    /** The product's website exactly as it was sent (http/https), or null */
    website?: unknown;
    /** Kind of content asked for, e.g. video */
    content_type?: unknown;
    /** Category of the campaign, e.g. general */
    category?: unknown;
    /** Platforms the content is posted on */
    platform_ids?: unknown;
    /** A sound or track id on the platform that creators must use, or null */
    platform_music_id?: unknown;
    /** Pay per 1 000 views, in the minor unit of `currency`; fixed once published */
    cpm_amount?: unknown;
    /** Smallest payout per submission, in the minor unit of `currency`; fixed once published */
    min_payout_amount?: unknown;
    /** Largest payout per submission, in the minor unit of `currency`; 0 means no maximum; fixed once published */
    max_payout_amount?: unknown;
    /** Fixed reward per accepted submission, in the minor unit of `currency`; fixed once published */
    base_reward_amount?: unknown;
    /** Everything funded so far, in the minor unit of `currency`; 0 on create (read-only) */
    total_budget_amount?: unknown;
    /** Of the budget, what has been paid out to creators, in the minor unit of `currency` (read-only) */
    used_amount?: unknown;
    /** Of the budget, what is left: total_budget_amount - used_amount (read-only) */
    unused_amount?: unknown;
    /** Views of the campaign's content (read-only) */
    view_count?: unknown;
    /** Submissions creators have made to it (read-only) */
    submissions_count?: unknown;
    /** When it was first published (made active), or null if it never was */
    published_at?: unknown;
    /** While it is paused, when it was paused; null otherwise */
    paused_at?: unknown;
    /** When it was created (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    created_at?: unknown;
    /** When it last changed (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    updated_at?: unknown;
    /** Its JSON address */
    url?: unknown;
    /** Address of its banner image, or null when it has none */
    banner_image_url?: unknown;
  };
  Campaign: {
    /** The campaign's id: the `:id` of its URLs */
    id?: unknown;
    /** Display name */
    name?: unknown;
    /** draft (new; only a draft without fundings can be deleted), active (after publish, which needs a budget), paused (after pause; resume makes it active again), finished */
    status?: unknown;
    /** Lowercase ISO 4217 code, e.g. usd; its amounts are in its minor unit (cents for usd, yen for jpy) */
    currency?: unknown;
    /** Uppercase ISO 3166-1 alpha-2 codes of the countries it targets, e.g. ["US","CA"] */
    countries?: unknown;
    /** The product's website exactly as it was sent (http/https), or null */
    website?: unknown;
    /** Kind of content asked for, e.g. video */
    content_type?: unknown;
    /** Category of the campaign, e.g. general */
    category?: unknown;
    /** Platforms the content is posted on */
    platform_ids?: unknown;
    /** A sound or track id on the platform that creators must use, or null */
    platform_music_id?: unknown;
    /** Pay per 1 000 views, in the minor unit of `currency`; fixed once published */
    cpm_amount?: unknown;
    /** Smallest payout per submission, in the minor unit of `currency`; fixed once published */
    min_payout_amount?: unknown;
    /** Largest payout per submission, in the minor unit of `currency`; 0 means no maximum; fixed once published */
    max_payout_amount?: unknown;
    /** Fixed reward per accepted submission, in the minor unit of `currency`; fixed once published */
    base_reward_amount?: unknown;
    /** Everything funded so far, in the minor unit of `currency`; 0 on create (read-only) */
    total_budget_amount?: unknown;
    /** Of the budget, what has been paid out to creators, in the minor unit of `currency` (read-only) */
    used_amount?: unknown;
    /** Of the budget, what is left: total_budget_amount - used_amount (read-only) */
    unused_amount?: unknown;
    /** Views of the campaign's content (read-only) */
    view_count?: unknown;
    /** Submissions creators have made to it (read-only) */
    submissions_count?: unknown;
    /** When it was first published (made active), or null if it never was */
    published_at?: unknown;
    /** While it is paused, when it was paused; null otherwise */
    paused_at?: unknown;
    /** When it was created (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    created_at?: unknown;
    /** When it last changed (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    updated_at?: unknown;
    /** Its JSON address */
    url?: unknown;
    /** Address of its banner image, or null when it has none */
    banner_image_url?: unknown;
    /** What creators are asked for: the Markdown sent, rendered to sanitized HTML */
    brief?: unknown;
  };
  Membership: {
    /** The membership's id: the `:id` of its URLs (not the user's id) */
    id?: unknown;
    /** admin (manages the organization, its collabs, campaigns and members) or member */
    role?: unknown;
    /** True for the organization owner, who cannot be removed or demoted */
    is_owner?: unknown;
    /** When it was created (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    created_at?: unknown;
    /** When it last changed (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    updated_at?: unknown;
    /** The member */
    user?: unknown;
  };
  User: {
    /** The user's id */
    id?: unknown;
    /** The user's name */
    name?: unknown;
    /** The user's e-mail address */
    email?: unknown;
  };
  AccessToken: {
    /** The token's id (not its value, which is shown only when it is created) */
    id?: unknown;
    /** What the token is for, as its creator wrote it */
    description?: unknown;
    /** read (GET only) or write (every method) */
    permission?: unknown;
    /** When it was created (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    created_at?: unknown;
    /** Null until the token is first used; then updated at most once a minute */
    last_used_at?: unknown;
  };
  AccessTokenWithSecret: {
    /** The token's id (not its value, which is shown only when it is created) */
    id?: unknown;
    /** What the token is for, as its creator wrote it */
    description?: unknown;
    /** read (GET only) or write (every method) */
    permission?: unknown;
    /** When it was created (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    created_at?: unknown;
    /** Null until the token is first used; then updated at most once a minute */
    last_used_at?: unknown;
    /** The token itself (mkt_…), sent as `Authorization: Bearer <token>`: shown this once, keep it secret */
    token?: unknown;
  };
  SocialAccount: {
    /** The social account's id: the `:id` of its URLs */
    id?: unknown;
    /** The platform: youtube, x, twitch, tiktok or instagram */
    platform_id?: unknown;
    /** The account's https URL on the platform; an account is connected once across all users */
    account_url?: unknown;
    /** The handle or channel on the platform, read from account_url */
    uid?: unknown;
    /** pending (new), verified or failed */
    status?: unknown;
    /** Subscribers or followers, from the latest snapshot; null until the first sync */
    subscriber_count?: unknown;
    /** Views, from the latest snapshot; null until the first sync */
    view_count?: unknown;
    /** Videos or posts, from the latest snapshot; null until the first sync */
    video_count?: unknown;
    /** Likes, from the latest snapshot; null until the first sync */
    likes_count?: unknown;
    /** A decimal number written as a string, e.g. "4.25"; null until the first sync */
    engagement_rate?: unknown;
    /** When the latest snapshot was taken, or null before the first sync */
    last_synced_at?: unknown;
    /** When it was created (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    created_at?: unknown;
    /** When it last changed (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    updated_at?: unknown;
    /** Its JSON address */
    url?: unknown;
  };
  Address: {
    /** The address's id */
    id?: unknown;
    /** Street and number */
    address_one?: unknown;
    /** Apartment, suite, etc.; null for none */
    address_two?: unknown;
    /** City */
    city?: unknown;
    /** State, province or region */
    state?: unknown;
    /** Postal or ZIP code */
    postal_code?: unknown;
    /** Uppercase ISO 3166-1 alpha-2 country code, e.g. US */
    country_code?: unknown;
    /** When it was created (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    created_at?: unknown;
    /** When it last changed (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    updated_at?: unknown;
  };
  NotificationSettings: {
    /** When false, delivery is suppressed but device subscriptions stay registered */
    push_notifications_enabled?: unknown;
    /** Number of devices currently subscribed for web push */
    push_subscription_count?: unknown;
  };
  Notification: {
    /** The notification's id */
    id?: unknown;
    /** Name of the notifier kind; clients dispatch on it */
    type?: unknown;
    /** What the kind says, by name: Membership::JoinRequestReceivedNotifier has user_name and organization_name */
    params?: unknown;
    /** Type of the resource it is about, e.g. Membership::JoinRequest */
    record_type?: unknown;
    /** Id of the resource it is about */
    record_id?: unknown;
    /** When the user first saw it, or null */
    seen_at?: unknown;
    /** When the user read it, or null */
    read_at?: unknown;
    /** When it was sent (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    created_at?: unknown;
  };
  TestUserCreated: {
    /** The new user */
    user?: unknown;
    /** An access token of the user, with its value (shown this once) */
    access_token?: unknown;
  };
  TestJoinRequest: {
    /** The join request's id */
    id?: unknown;
    /** Who asks to join */
    user_id?: unknown;
    /** The organization asked */
    organization_id?: unknown;
    /** When it was created (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    created_at?: unknown;
  };
  TestSubscription: {
    /** The organization has an active subscription (it cannot be deleted while it has one) */
    active?: unknown;
  };
  TestSubmission: {
    /** The submission's id */
    id?: unknown;
    /** When it was created (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    created_at?: unknown;
  };
  TestFunding: {
    /** The funding's id */
    id?: unknown;
    /** Added to the campaign's total_budget_amount and unused_amount, in the minor unit of its currency */
    amount?: unknown;
    /** When it was created (ISO 8601 in UTC, e.g. 2026-11-21T10:15:30.123Z) */
    created_at?: unknown;
  };
  TestPushSubscription: {
    /** The push subscription's id (one more in the user's push_subscription_count) */
    id?: unknown;
  };
}
