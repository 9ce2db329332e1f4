/** Realistic objects in the spec's shape, as the server writes them (OpenAPI examples, test fixtures). */
const at = '2026-11-21T10:15:30.123Z';
const base = 'https://marketplace.example';

export const organization = {
  id: 'k3J9xQ2mLp7Z',
  name: 'Acme Studios',
  privacy_setting: 'private',
  website: 'https://acme.example',
  created_at: at,
  updated_at: at,
  url: `${base}/organizations/k3J9xQ2mLp7Z.json`,
  logo_url: `${base}/uploads/9f8e7d6c5b4a3f2e1d0c.png`,
};

export const membership = {
  id: 'Mb7Qx1Lr9TzK',
  role: 'admin',
  is_owner: true,
  created_at: at,
  updated_at: at,
  user: { id: 'Us3r1dAbCdEf', name: 'Ada Lovelace', email: 'ada@example.com' },
};

export const collab = {
  id: 'C0llab1dXyZ9',
  name: 'Summer launch',
  state: 'draft',
  currency: 'usd',
  countries: ['US', 'CA'],
  website: null,
  require_boosted_ads: false,
  requires_product_shipment: true,
  submissions_count: 0,
  completed_count: 0,
  published_at: null,
  created_at: at,
  updated_at: at,
  url: `${base}/organizations/k3J9xQ2mLp7Z/collabs/C0llab1dXyZ9.json`,
  banner_image_url: null,
  brief: '<h2>About the product</h2>',
};

export const campaign = {
  id: 'Camp41gn1dQw',
  name: 'Autumn reels',
  status: 'active',
  currency: 'eur',
  countries: ['DE'],
  website: 'https://acme.example/autumn',
  content_type: 'video',
  category: 'general',
  platform_ids: ['youtube', 'x'],
  platform_music_id: null,
  cpm_amount: 250,
  min_payout_amount: 1000,
  max_payout_amount: 50000,
  base_reward_amount: 0,
  total_budget_amount: 100000,
  used_amount: 2500,
  unused_amount: 97500,
  view_count: 12000,
  submissions_count: 3,
  published_at: at,
  paused_at: null,
  created_at: at,
  updated_at: at,
  url: `${base}/organizations/k3J9xQ2mLp7Z/campaigns/Camp41gn1dQw.json`,
  banner_image_url: `${base}/uploads/abc.webp`,
  brief: '<p>Hi</p>',
};

export const socialAccount = {
  id: 'S0c1alAcct01',
  platform_id: 'youtube',
  account_url: 'https://youtube.com/@acme',
  uid: '@acme',
  status: 'verified',
  subscriber_count: 1200,
  view_count: 50000,
  video_count: 42,
  likes_count: 900,
  engagement_rate: '4.25',
  last_synced_at: at,
  created_at: at,
  updated_at: at,
  url: `${base}/me/social_accounts/S0c1alAcct01.json`,
};

export const address = {
  id: 'Addr3ss1dQwe',
  address_one: '1 Infinite Loop',
  address_two: null,
  city: 'Cupertino',
  state: 'CA',
  postal_code: '95014',
  country_code: 'US',
  created_at: at,
  updated_at: at,
};

export const notification = {
  id: 'N0t1f1cat10n',
  type: 'Membership::JoinRequestReceivedNotifier',
  params: { user_name: 'Bob', organization_name: 'Acme Studios' },
  record_type: 'Membership::JoinRequest',
  record_id: 'J01nReq1dXyz',
  seen_at: null,
  read_at: null,
  created_at: at,
};

export const notificationSettings = { push_notifications_enabled: true, push_subscription_count: 2 };

export const accessToken = {
  id: 'T0ken1dQwErt',
  description: 'CI agent',
  permission: 'write',
  created_at: at,
  last_used_at: null,
};
