/** Wire objects as the server writes them, and a client set up for msw. */
import {
  type CampaignId,
  type CollabId,
  type MembershipId,
  type OrganizationId,
  PAGE_SIZE,
  type SocialAccountId,
} from '@app/schemas';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type ClientOptions, Marketplace } from '../src/index.js';

export const BASE = 'https://api.marketplace.test';
export const TOKEN = 'mkt_test_token_0123456789abcdefghijklmnopqrstuvwxyzABCD';
const at = '2026-11-21T10:15:30.123Z';

export const ORG_ID = 'k3J9xQ2mLp7Z' as OrganizationId;
export const COLLAB_ID = 'C0llab1dXyZ9' as CollabId;
export const CAMPAIGN_ID = 'Camp41gn1dQw' as CampaignId;
export const MEMBERSHIP_ID = 'Mb7Qx1Lr9TzK' as MembershipId;
export const SOCIAL_ACCOUNT_ID = 'S0c1alAcct01' as SocialAccountId;

export const organization = {
  id: ORG_ID,
  name: 'Acme Studios',
  privacy_setting: 'private',
  website: 'https://acme.example',
  created_at: at,
  updated_at: at,
  url: `${BASE}/organizations/${ORG_ID}.json`,
};

export const membership = {
  id: MEMBERSHIP_ID,
  role: 'admin',
  is_owner: true,
  created_at: at,
  updated_at: at,
  user: { id: 'Us3r1dAbCdEf', name: 'Ada Lovelace', email: 'ada@example.com' },
};

export const collab = {
  id: COLLAB_ID,
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
  url: `${BASE}/organizations/${ORG_ID}/collabs/${COLLAB_ID}.json`,
  banner_image_url: null,
  brief: '<h2>About the product</h2>',
};

export const campaign = {
  id: CAMPAIGN_ID,
  name: 'Autumn reels',
  status: 'draft',
  currency: 'eur',
  countries: ['DE'],
  website: null,
  content_type: 'video',
  category: 'general',
  platform_ids: ['youtube'],
  platform_music_id: null,
  cpm_amount: 250,
  min_payout_amount: 1000,
  max_payout_amount: 50000,
  base_reward_amount: 0,
  total_budget_amount: 100000,
  used_amount: 0,
  unused_amount: 100000,
  view_count: 0,
  submissions_count: 0,
  published_at: null,
  paused_at: null,
  created_at: at,
  updated_at: at,
  url: `${BASE}/organizations/${ORG_ID}/campaigns/${CAMPAIGN_ID}.json`,
  banner_image_url: null,
  brief: '<p>Hi</p>',
};

export const socialAccount = {
  id: SOCIAL_ACCOUNT_ID,
  platform_id: 'youtube',
  account_url: 'https://youtube.com/@acme',
  uid: '@acme',
  status: 'pending',
  subscriber_count: null,
  view_count: null,
  video_count: null,
  likes_count: null,
  engagement_rate: null,
  last_synced_at: null,
  created_at: at,
  updated_at: at,
  url: `${BASE}/me/social_accounts/${SOCIAL_ACCOUNT_ID}.json`,
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

/** `count` organizations with distinct ids, as a collection would hold them. */
export function organizations(count: number, from = 0) {
  return Array.from({ length: count }, (_, i) => ({
    ...organization,
    id: `org${from + i}`,
    name: `Org ${from + i}`,
  }));
}

/** A collection answer: `page` of `items`, with the pagination headers. */
export function pageOf<T>(items: readonly T[], page: number): Response {
  const totalPages = Math.max(1, Math.ceil(items.length / PAGE_SIZE));
  return HttpResponse.json(items.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE), {
    headers: {
      'Current-Page': String(page),
      'Page-Items': String(PAGE_SIZE),
      'Total-Count': String(items.length),
      'Total-Pages': String(totalPages),
    },
  });
}

/** The `page` query parameter of a request (1 when absent). */
export const pageParam = (request: Request): number =>
  Number(new URL(request.url).searchParams.get('page') ?? 1);

/** A client against {@link BASE} that retries without waiting. */
export function client(options: Partial<ClientOptions> = {}): Marketplace {
  return new Marketplace({ token: TOKEN, baseUrl: BASE, random: () => 0, ...options });
}

/**
 * An msw server for one test file. A request no handler takes is answered 501 (msw would let it
 * through to the network), unless `bypass` lets requests reach real sockets (transport tests).
 */
export function mockServer({ bypass = false } = {}) {
  const server = bypass
    ? setupServer()
    : setupServer(
        http.all('*', ({ request }) =>
          HttpResponse.json({ error: `No handler for ${request.method} ${request.url}` }, { status: 501 }),
        ),
      );
  beforeAll(() => server.listen({ onUnhandledFrame: bypass ? 'bypass' : 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}

/** Every request the server sees, for assertions on counts and headers. */
export function recordRequests(server: ReturnType<typeof setupServer>): Request[] {
  const seen: Request[] = [];
  server.events.on('request:start', ({ request }) => {
    seen.push(request.clone());
  });
  afterEach(() => {
    seen.length = 0;
  });
  return seen;
}
