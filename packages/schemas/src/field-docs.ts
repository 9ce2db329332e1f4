// Written from FIELD_DESCRIPTIONS (field-descriptions.ts) by test/field-docs.test.ts; do not edit.
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
  /** Platforms the content is posted on (at most 5, duplicates dropped) */
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
