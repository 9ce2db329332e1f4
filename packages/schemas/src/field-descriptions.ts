/**
 * What each request field means, by its wire name, for the surfaces that show one field at a time
 * (MCP tool inputs, CLI flags). A field whose schema has a description of its own (`.meta()`)
 * keeps that one; its type, limits, enums and formats come from the schema.
 */
export const FIELD_DESCRIPTIONS: Readonly<Record<string, string>> = {
  page: 'Page to return, from 1 (default 1); 20 items a page; a page past the last is an empty list',
  organization_id: "The organization's id (from the organizations list)",
  name: 'Display name',
  privacy_setting: 'Who can find the organization (default private)',
  website: 'http(s) URL, returned as sent; "" or null clears it',
  currency: 'Lowercase ISO 4217 code, e.g. usd (uppercase is accepted); default usd',
  countries: 'Uppercase ISO 3166-1 alpha-2 codes of the target countries, e.g. ["US","CA"]; default ["US"]',
  require_boosted_ads: 'Creators must allow their post to be boosted as an ad',
  requires_product_shipment: 'A product sample is shipped to the creator',
  brief: 'Markdown; rendered to sanitized HTML on output',
  content_type: 'Kind of content asked for, e.g. video (default video)',
  category: 'Category of the campaign, e.g. general (default general)',
  cpm_amount: 'Pay per 1 000 views, in the minor unit of `currency` (cents for usd, yen for jpy); 0 to 10^12',
  min_payout_amount:
    'Smallest payout per submission, in the minor unit of `currency`; at most max_payout_amount when that is above 0',
  max_payout_amount: 'Largest payout per submission, in the minor unit of `currency`; 0 means no maximum',
  base_reward_amount: 'Fixed reward per accepted submission, in the minor unit of `currency`',
  platform_ids: 'Platforms the content is posted on (duplicates dropped, so at most the 5 platforms)',
  platform_music_id: 'A sound or track id on the platform that creators must use; null for none',
  role: 'The new role: admin (manages the organization) or member',
  platform_id: 'The platform: youtube, x and twitch connect by URL (tiktok and instagram need the web app)',
  account_url: "The account's https URL on the platform, e.g. https://youtube.com/@acme",
  address_one: 'Street and number',
  address_two: 'Apartment, suite, etc.; null or "" for none',
  city: 'City',
  state: 'State, province or region',
  postal_code: 'Postal or ZIP code',
  country_code: 'Uppercase ISO 3166-1 alpha-2 country code, e.g. US (lowercase is accepted)',
  push_notifications_enabled: "Send push notifications to the user's devices",
  description: 'What the token is for (shown in the token list)',
  permission: 'read (GET only) or write (everything the user may do)',
};

/** The description of the path parameter `id` of an endpoint on `path` (`/organizations/:organization_id/collabs/:id`). */
export function idDescription(path: string): string {
  const collection = /\/([a-z_]+)\/:id(?:\/|$)/.exec(path)?.[1] ?? 'resource';
  const noun = collection.replace(/s$/, '').replaceAll('_', ' ');
  const what = noun === 'member' ? 'membership' : noun;
  return `The ${what}'s id (from the ${collection.replaceAll('_', ' ')} list)`;
}
