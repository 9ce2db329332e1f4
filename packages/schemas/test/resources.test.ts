import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import {
  AccessToken,
  AccessTokenWithSecret,
  Address,
  Campaign,
  CampaignSummary,
  Collab,
  CollabSummary,
  Membership,
  Notification,
  NotificationSettings,
  Organization,
  SocialAccount,
} from '../src/index.js';
import * as fx from './fixtures.js';

/** For each resource: a realistic object, and broken copies the schema must refuse. */
const cases: Array<{
  name: string;
  schema: z.ZodType;
  valid: Record<string, unknown>;
  wrongType: [string, unknown];
  outOfRange: [string, unknown];
}> = [
  {
    name: 'Organization',
    schema: Organization,
    valid: fx.organization,
    wrongType: ['name', 42],
    outOfRange: ['privacy_setting', 'secret'],
  },
  {
    name: 'Membership',
    schema: Membership,
    valid: fx.membership,
    wrongType: ['is_owner', 'yes'],
    outOfRange: ['role', 'owner'],
  },
  {
    name: 'Collab',
    schema: Collab,
    valid: fx.collab,
    wrongType: ['countries', 'US'],
    outOfRange: ['state', 'archived'],
  },
  {
    name: 'Campaign',
    schema: Campaign,
    valid: fx.campaign,
    wrongType: ['cpm_amount', '250'],
    outOfRange: ['used_amount', -1],
  },
  {
    name: 'SocialAccount',
    schema: SocialAccount,
    valid: fx.socialAccount,
    wrongType: ['subscriber_count', '1200'],
    outOfRange: ['status', 'banned'],
  },
  {
    name: 'Address',
    schema: Address,
    valid: fx.address,
    wrongType: ['city', null],
    outOfRange: ['country_code', 'usa'],
  },
  {
    name: 'Notification',
    schema: Notification,
    valid: fx.notification,
    wrongType: ['params', 'x'],
    outOfRange: ['created_at', 'yesterday'],
  },
  {
    name: 'NotificationSettings',
    schema: NotificationSettings,
    valid: fx.notificationSettings,
    wrongType: ['push_notifications_enabled', 1],
    outOfRange: ['push_subscription_count', -2],
  },
  {
    name: 'AccessToken',
    schema: AccessToken,
    valid: fx.accessToken,
    wrongType: ['description', 5],
    outOfRange: ['permission', 'admin'],
  },
];

describe.each(cases)('$name', ({ schema, valid, wrongType, outOfRange }) => {
  it('accepts a realistic object in the spec shape', () => {
    expect(schema.parse(valid)).toEqual(valid);
  });

  it('refuses a field of the wrong type', () => {
    expect(schema.safeParse({ ...valid, [wrongType[0]]: wrongType[1] }).success).toBe(false);
  });

  it('refuses an out-of-range value', () => {
    expect(schema.safeParse({ ...valid, [outOfRange[0]]: outOfRange[1] }).success).toBe(false);
  });

  it.each(Object.keys(valid))('refuses the object without %s', (field) => {
    const { [field]: _, ...rest } = valid;
    const optional = field === 'logo_url';
    expect(schema.safeParse(rest).success).toBe(optional);
  });
});

describe('optional values', () => {
  it('omits logo_url when no logo is attached, never null', () => {
    const { logo_url: _, ...withoutLogo } = fx.organization;
    expect(Organization.parse(withoutLogo)).not.toHaveProperty('logo_url');
    expect(Organization.safeParse({ ...fx.organization, logo_url: null }).success).toBe(false);
  });

  it('writes website, banner_image_url and address_two as null when empty', () => {
    expect(Organization.parse({ ...fx.organization, website: null }).website).toBeNull();
    expect(Collab.parse({ ...fx.collab, banner_image_url: null }).banner_image_url).toBeNull();
    expect(Address.parse({ ...fx.address, address_two: null }).address_two).toBeNull();
  });

  it('keeps brief out of the list shapes and in the show shapes', () => {
    expect(CollabSummary.parse(fx.collab)).not.toHaveProperty('brief');
    expect(CampaignSummary.parse(fx.campaign)).not.toHaveProperty('brief');
    expect(Collab.safeParse({ ...fx.collab, brief: undefined }).success).toBe(false);
  });

  it('shows the token value only in the creation shape', () => {
    expect(AccessToken.parse({ ...fx.accessToken, token: 'mkt_x' })).not.toHaveProperty('token');
    expect(AccessTokenWithSecret.safeParse(fx.accessToken).success).toBe(false);
    expect(AccessTokenWithSecret.parse({ ...fx.accessToken, token: 'mkt_abc' }).token).toBe('mkt_abc');
  });

  it('accepts nulls in a social account before its first sync', () => {
    const pending = {
      ...fx.socialAccount,
      status: 'pending',
      subscriber_count: null,
      view_count: null,
      video_count: null,
      likes_count: null,
      engagement_rate: null,
      last_synced_at: null,
    };
    expect(SocialAccount.parse(pending)).toEqual(pending);
    expect(SocialAccount.safeParse({ ...fx.socialAccount, engagement_rate: 4.25 }).success).toBe(false);
  });

  it('requires timestamps in UTC', () => {
    expect(
      Organization.safeParse({ ...fx.organization, created_at: '2026-11-21T10:15:30.123+02:00' }).success,
    ).toBe(false);
  });
});
