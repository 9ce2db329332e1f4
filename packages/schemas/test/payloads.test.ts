import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import {
  AccessTokenCreate,
  AddressComplete,
  AddressUpdate,
  CampaignCreate,
  CampaignUpdate,
  CollabCreate,
  CollabCreateQuery,
  CollabUpdate,
  MAX_AMOUNT,
  MembershipUpdate,
  NotificationSettingsUpdate,
  OrganizationCreate,
  OrganizationUpdate,
  PageQuery,
  parseAccountUrl,
  SocialAccountCreate,
  toFieldErrors,
} from '../src/index.js';

/** The `errors` map a payload gives, or null when it is accepted. */
function errorsOf(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  return result.success ? null : toFieldErrors(result.error.issues);
}

describe('organization payloads', () => {
  it('requires a name of 1 to 100 characters', () => {
    expect(errorsOf(OrganizationCreate, {})).toEqual({ name: ["can't be blank"] });
    expect(errorsOf(OrganizationCreate, { name: '   ' })).toEqual({ name: ["can't be blank"] });
    expect(errorsOf(OrganizationCreate, { name: 'x'.repeat(101) })).toEqual({
      name: ['is too long (maximum is 100 characters)'],
    });
    expect(errorsOf(OrganizationCreate, { name: 'x'.repeat(100) })).toBeNull();
  });

  it('defaults privacy_setting to private and accepts only the three settings', () => {
    expect(OrganizationCreate.parse({ name: 'A' }).privacy_setting).toBe('private');
    expect(errorsOf(OrganizationCreate, { name: 'A', privacy_setting: 'hidden' })).toEqual({
      privacy_setting: ['must be one of public, private, restricted'],
    });
  });

  it('stores a website as sent after trimming: no slash added, host case kept (decisions §6)', () => {
    for (const [given, stored] of [
      ['https://owner.example.com', 'https://owner.example.com'],
      ['  HTTPS://Shop.Example:443/Path?Q=1#Top  ', 'HTTPS://Shop.Example:443/Path?Q=1#Top'],
      ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
      ['http://[::1]/', 'http://[::1]/'],
      ['https://bücher.example/ä?x=%20', 'https://bücher.example/ä?x=%20'],
      ['https://a.example/a b?q=<x>&r="y"#`z`', 'https://a.example/a%20b?q=%3Cx%3E&r=%22y%22#%60z%60'],
      ['http://x/"><script>alert(1)</script>', 'http://x/%22%3E%3Cscript%3Ealert(1)%3C/script%3E'],
      ['https://a.example/\ttab\u0001', 'https://a.example/%09tab%01'],
    ])
      expect(OrganizationCreate.parse({ name: 'A', website: given }).website).toBe(stored);
    expect(CollabCreateQuery.parse({ website: 'http://x/"><b>' }).website).toBe('http://x/%22%3E%3Cb%3E');
    expect(CollabCreateQuery.parse({ website: 'https://Shop.example' }).website).toBe('https://Shop.example');
  });

  it('refuses a host that is not a DNS name or an IP literal with "is not a valid URL"', () => {
    for (const website of [
      'http://x"onmouseover="alert(1)',
      'http://x`onmouseover=alert(1)`/',
      "http://x'y.example/",
      'http://a b.example/',
      'http://<b>.example/',
      'http://x.example:80a/',
      'http://',
      'https://a.example\u0000/',
    ]) {
      expect(errorsOf(OrganizationCreate, { name: 'A', website }), website).toEqual({
        website: ['is not a valid URL'],
      });
      expect(errorsOf(CollabCreateQuery, { website }), website).toEqual({
        website: ['is not a valid URL'],
      });
    }
  });

  it('measures the length on the stored form', () => {
    const typed = `https://a.example/${'"'.repeat(1000)}`;
    expect(typed.length).toBeLessThan(2048);
    expect(errorsOf(OrganizationCreate, { name: 'A', website: typed })).toEqual({
      website: ['is too long (maximum is 2048 characters)'],
    });
  });

  it('accepts only an http(s) website, and treats "" as none', () => {
    expect(OrganizationCreate.parse({ name: 'A', website: 'https://a.example' }).website).toBe(
      'https://a.example',
    );
    expect(OrganizationCreate.parse({ name: 'A', website: '' }).website).toBeNull();
    expect(errorsOf(OrganizationCreate, { name: 'A', website: 'javascript:alert(1)' })).toEqual({
      website: ['must be an http or https URL'],
    });
    expect(errorsOf(OrganizationCreate, { name: 'A', website: 'ftp://a.example' })).not.toBeNull();
    expect(errorsOf(OrganizationCreate, { name: 'A', website: 42 })).toEqual({
      website: ['must be an http or https URL'],
    });
    expect(
      errorsOf(OrganizationCreate, { name: 'A', website: `https://a.example/${'x'.repeat(2048)}` }),
    ).toEqual({
      website: ['is too long (maximum is 2048 characters)'],
    });
    expect(OrganizationCreate.parse({ name: 'A', website: null }).website).toBeNull();
  });

  it('accepts purge_logo "1" and ignores unknown fields', () => {
    expect(OrganizationUpdate.parse({ purge_logo: '1', owner_id: 'x' })).toEqual({ purge_logo: '1' });
    expect(errorsOf(OrganizationUpdate, { purge_logo: 'yes' })).toHaveProperty('purge_logo');
  });

  it('lists every broken field at once', () => {
    expect(
      Object.keys(errorsOf(OrganizationCreate, { name: 5, privacy_setting: 1, website: 2 }) ?? {}),
    ).toEqual(['name', 'privacy_setting', 'website']);
  });
});

describe('collab payloads', () => {
  it('accepts an empty payload (every field has a default)', () => {
    expect(CollabCreate.parse({})).toEqual({});
  });

  it('normalises currency to lowercase and refuses unknown codes', () => {
    expect(CollabCreate.parse({ currency: 'EUR' }).currency).toBe('eur');
    expect(errorsOf(CollabCreate, { currency: 'xyz' })).toEqual({
      currency: ['is not a known ISO 4217 currency code'],
    });
    expect(errorsOf(CollabCreate, { currency: 'euro' })).not.toBeNull();
  });

  it('normalises countries to uppercase, drops repeats and refuses unknown codes', () => {
    expect(CollabCreate.parse({ countries: ['de', 'US', 'de'] }).countries).toEqual(['DE', 'US']);
    expect(errorsOf(CollabCreate, { countries: ['US', 'ZZ'] })).toEqual({
      countries: ['is not a known ISO 3166-1 alpha-2 country code'],
    });
    expect(errorsOf(CollabCreate, { countries: [] })).toEqual({ countries: ["can't be empty"] });
    expect(errorsOf(CollabCreate, { countries: 'US' })).toEqual({
      countries: ['must be an array of country codes'],
    });
  });

  it('takes booleans only as booleans', () => {
    expect(errorsOf(CollabCreate, { require_boosted_ads: 'true' })).toEqual({
      require_boosted_ads: ['must be true or false'],
    });
  });

  it('limits the Markdown brief to 20 000 characters', () => {
    expect(errorsOf(CollabCreate, { brief: 'x'.repeat(20_000) })).toBeNull();
    expect(errorsOf(CollabCreate, { brief: 'x'.repeat(20_001) })).toEqual({
      brief: ['is too long (maximum is 20000 characters)'],
    });
  });

  it('accepts purge_banner_image on update only', () => {
    expect(CollabUpdate.parse({ purge_banner_image: '1' })).toEqual({ purge_banner_image: '1' });
    expect(CollabCreate.parse({ purge_banner_image: '1' })).toEqual({});
  });

  it('takes an http(s) website query for the prefill', () => {
    expect(CollabCreateQuery.safeParse({ website: 'https://shop.example/p/1' }).success).toBe(true);
    expect(CollabCreateQuery.safeParse({ website: 'file:///etc/passwd' }).success).toBe(false);
  });
});

describe('campaign payloads', () => {
  it('takes integer amounts from 0 to 10^12', () => {
    expect(errorsOf(CampaignCreate, { cpm_amount: MAX_AMOUNT })).toBeNull();
    expect(errorsOf(CampaignCreate, { cpm_amount: MAX_AMOUNT + 1 })).toEqual({
      cpm_amount: [`must be less than or equal to ${MAX_AMOUNT}`],
    });
    expect(errorsOf(CampaignCreate, { base_reward_amount: -1 })).toEqual({
      base_reward_amount: ['must be greater than or equal to 0'],
    });
    expect(errorsOf(CampaignCreate, { cpm_amount: 2.5 })).toEqual({ cpm_amount: ['must be an integer'] });
    expect(errorsOf(CampaignCreate, { cpm_amount: '5' })).toEqual({ cpm_amount: ['must be an integer'] });
  });

  it('requires min_payout_amount ≤ max_payout_amount when a maximum is set', () => {
    const message = { min_payout_amount: ['must be less than or equal to max_payout_amount'] };
    expect(errorsOf(CampaignCreate, { min_payout_amount: 10, max_payout_amount: 5 })).toEqual(message);
    expect(errorsOf(CampaignUpdate, { min_payout_amount: 10, max_payout_amount: 5 })).toEqual(message);
    expect(errorsOf(CampaignCreate, { min_payout_amount: 10, max_payout_amount: 0 })).toBeNull();
    expect(errorsOf(CampaignCreate, { min_payout_amount: 5, max_payout_amount: 5 })).toBeNull();
  });

  it('reports the payout rule together with other broken fields', () => {
    expect(errorsOf(CampaignCreate, { name: 1, min_payout_amount: 10, max_payout_amount: 5 })).toEqual({
      name: ['must be a string'],
      min_payout_amount: ['must be less than or equal to max_payout_amount'],
    });
  });

  it('ignores the read-only budget fields', () => {
    expect(
      CampaignCreate.parse({ total_budget_amount: 5, used_amount: 1, unused_amount: 4, view_count: 9 }),
    ).toEqual({});
  });

  it('accepts known platform ids only', () => {
    expect(CampaignCreate.parse({ platform_ids: ['youtube', 'x', 'youtube'] }).platform_ids).toEqual([
      'youtube',
      'x',
    ]);
    expect(errorsOf(CampaignCreate, { platform_ids: ['myspace'] })).toHaveProperty('platform_ids');
  });
});

describe('social account payloads', () => {
  it.each([
    ['youtube', 'https://www.youtube.com/@Acme/', 'https://youtube.com/@acme', '@Acme'],
    ['youtube', 'https://youtube.com/c/AcmeCo', 'https://youtube.com/c/acmeco', 'AcmeCo'],
    ['youtube', 'https://youtube.com/%40acme', 'https://youtube.com/@acme', '@acme'],
    [
      'youtube',
      'https://m.youtube.com/channel/UC1234567890',
      'https://youtube.com/channel/UC1234567890',
      'UC1234567890',
    ],
    ['x', 'https://X.com/acme?ref=1#top', 'https://x.com/acme', 'acme'],
    ['x', 'https://twitter.com/acme', 'https://x.com/acme', 'acme'],
    ['x', 'https://mobile.twitter.com/Acme', 'https://x.com/acme', 'Acme'],
    ['x', 'https://x.com/f%61mouscreator', 'https://x.com/famouscreator', 'famouscreator'],
    ['x', 'https://x.com/FamousCreator', 'https://x.com/famouscreator', 'FamousCreator'],
    ['twitch', 'https://twitch.tv/%41cme', 'https://twitch.tv/acme', 'Acme'],
    ['twitch', 'https://www.twitch.tv/acme_live', 'https://twitch.tv/acme_live', 'acme_live'],
  ])('normalises a %s URL %s', (platform_id, account_url, normalised, uid) => {
    expect(SocialAccountCreate.parse({ platform_id, account_url })).toEqual({
      platform_id,
      account_url: normalised,
      uid,
    });
  });

  it.each(['tiktok', 'instagram'])('refuses %s (browser OAuth only) on platform_id', (platform_id) => {
    expect(
      errorsOf(SocialAccountCreate, { platform_id, account_url: `https://${platform_id}.com/@a` }),
    ).toEqual({
      platform_id: ['connects through the browser OAuth flow and cannot be added through the API'],
    });
  });

  it('refuses an unknown platform on platform_id', () => {
    expect(
      errorsOf(SocialAccountCreate, { platform_id: 'myspace', account_url: 'https://myspace.com/a' }),
    ).toEqual({
      platform_id: ['is not a known platform'],
    });
  });

  it.each([
    ['http://youtube.com/@a', 'must be an https URL'],
    ['https://evil.example/@a', 'must be on youtube.com'],
    ['https://youtube.com.evil.example/@a', 'must be on youtube.com'],
    ['https://user:pw@youtube.com/@a', 'must not contain credentials or a port'],
    ['https://youtube.com/watch', 'does not name an account on this platform'],
    ['not a url', 'is not a valid URL'],
  ])('refuses %s on account_url', (account_url, message) => {
    expect(errorsOf(SocialAccountCreate, { platform_id: 'youtube', account_url })).toEqual({
      account_url: [message],
    });
  });

  it('normalises the same account to the same URL', () => {
    const a = parseAccountUrl('x', 'https://www.X.com/acme/');
    const b = parseAccountUrl('x', 'https://x.com/acme');
    expect(a).toEqual(b);
  });

  it('normalises every spelling of one handle to one URL, and keeps channel ids as they are', () => {
    const spellings = [
      'https://x.com/famouscreator',
      'https://x.com/f%61mouscreator',
      'https://x.com/FamousCreator',
      'https://twitter.com/famouscreator',
      'https://www.twitter.com/FAMOUSCREATOR/',
      'https://mobile.twitter.com/famous%43reator?s=20',
    ];
    const urls = spellings.map((u) => {
      const parsed = parseAccountUrl('x', u);
      return parsed.ok ? parsed.accountUrl : parsed.message;
    });
    expect(new Set(urls)).toEqual(new Set(['https://x.com/famouscreator']));
    const a = parseAccountUrl('youtube', 'https://youtube.com/channel/UCabc');
    const b = parseAccountUrl('youtube', 'https://youtube.com/channel/UCABC');
    expect(a.ok && b.ok && a.accountUrl !== b.accountUrl).toBe(true);
  });

  it('refuses a path that decodes to more than one segment', () => {
    expect(parseAccountUrl('x', 'https://x.com/a%2Fb')).toMatchObject({ ok: false, field: 'account_url' });
  });
});

describe('address payloads', () => {
  const complete = {
    address_one: '1 Main St',
    city: 'Springfield',
    state: 'IL',
    postal_code: '62701',
    country_code: 'us',
  };

  it('requires the five fields non-blank on a new address, and normalises the country', () => {
    expect(AddressComplete.parse(complete)).toEqual({ ...complete, country_code: 'US', address_two: null });
    expect(errorsOf(AddressComplete, {})).toEqual({
      address_one: ["can't be blank"],
      city: ["can't be blank"],
      state: ["can't be blank"],
      postal_code: ["can't be blank"],
      country_code: ["can't be blank"],
    });
  });

  it('limits each field to 200 characters and refuses unknown countries', () => {
    expect(errorsOf(AddressUpdate, { city: 'x'.repeat(201), country_code: 'XX' })).toEqual({
      city: ['is too long (maximum is 200 characters)'],
      country_code: ['is not a known ISO 3166-1 alpha-2 country code'],
    });
  });

  it('takes address_two as optional, null or "" (stored as null)', () => {
    expect(AddressUpdate.parse({ address_two: '' })).toEqual({ address_two: null });
    expect(AddressUpdate.parse({ address_two: 'Apt 4' })).toEqual({ address_two: 'Apt 4' });
  });
});

describe('other payloads', () => {
  it('takes a role of member or admin', () => {
    expect(errorsOf(MembershipUpdate, { role: 'owner' })).toEqual({ role: ['must be one of member, admin'] });
    expect(errorsOf(MembershipUpdate, {})).toEqual({ role: ["can't be blank"] });
  });

  it('takes push_notifications_enabled as a boolean', () => {
    expect(errorsOf(NotificationSettingsUpdate, { push_notifications_enabled: 'false' })).toEqual({
      push_notifications_enabled: ['must be true or false'],
    });
  });

  it('takes a description and a read or write permission for a new token', () => {
    expect(errorsOf(AccessTokenCreate, { description: 'CI', permission: 'admin' })).toEqual({
      permission: ['must be one of read, write'],
    });
    expect(AccessTokenCreate.parse({ description: ' CI ', permission: 'read' })).toEqual({
      description: 'CI',
      permission: 'read',
    });
  });

  it.each([
    ['1', 1],
    ['42', 42],
  ])('takes page=%s', (page, expected) => {
    expect(PageQuery.parse({ page })).toEqual({ page: expected });
  });

  it.each(['0', '-1', '1.5', 'abc', ''])('refuses page=%j', (page) => {
    expect(errorsOf(PageQuery, { page })).toEqual({ page: ['must be a positive integer'] });
  });
});

describe('toFieldErrors', () => {
  it('drops the wrapper key and names the field', () => {
    const result = OrganizationCreate.safeParse({ name: '' });
    if (result.success) throw new Error('expected a failure');
    const issues = result.error.issues.map((i) => ({ ...i, path: ['organization', ...i.path] }));
    expect(toFieldErrors(issues, 'organization')).toEqual({ name: ["can't be blank"] });
  });

  it('names nested fields by their top-level field', () => {
    expect(errorsOf(CollabCreate, { countries: ['US', 'QQ', 'ZZ'] })).toEqual({
      countries: ['is not a known ISO 3166-1 alpha-2 country code'],
    });
  });
});
