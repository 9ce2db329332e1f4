/**
 * The SDK against the real server over real HTTP: every method of every resource and of the test
 * helpers, uploads read back byte for byte, transitions, pagination, the ETag cache and the typed
 * errors. The last test checks, from the endpoint table, that no endpoint was left out.
 */
import { describe, expect, test } from 'vitest';
import {
  AuthenticationError,
  type Campaign,
  CampaignId,
  type Collab,
  Marketplace,
  type Membership,
  NotFoundError,
  type Organization,
  OrganizationId,
  PermissionDeniedError,
  RequestValidationError,
  ValidationError,
} from '../../src/index.js';
import { download, type Exchange, png, recordingFetch, type TestUser, table, useServer } from './harness.js';

const server = useServer();

/** The error a promise rejects with, checked to be an instance of `type`. */
async function caught<E extends Error>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
) {
  const error = await promise.then(
    () => {
      throw new Error(`expected a ${type.name}, but the call succeeded`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as E;
}

const pngBlob = (rgb: [number, number, number]) => new Blob([png(12, 8, rgb)], { type: 'image/png' });

async function expectServed(url: string | null | undefined, blob: Blob) {
  expect(url).toMatch(new RegExp(`^${server.url}/uploads/`));
  const served = await download(url as string);
  expect(served.type).toBe('image/png');
  expect(served.bytes).toEqual(new Uint8Array(await blob.arrayBuffer()));
}

let alice: TestUser; // owner of the organization
let bob: TestUser; // a plain member
let carol: TestUser; // not a member
let org: Organization;
let aliceMembership: Membership;
let bobMembership: Membership;
let collab: Collab;
let campaign: Campaign;

describe('organizations', () => {
  test('create with a PNG logo (multipart), read the logo back byte for byte', async () => {
    alice = await server.newUser('Alice Owner');
    bob = await server.newUser('Bob Member');
    carol = await server.newUser('Carol Outsider');

    const logo = pngBlob([200, 30, 30]);
    org = await alice.client.organizations.create({
      name: 'Acme Studios',
      privacy_setting: 'public',
      website: 'https://acme.example/',
      logo,
    });
    expect(org).toMatchObject({
      name: 'Acme Studios',
      privacy_setting: 'public',
      website: 'https://acme.example/',
      url: `${server.url}/organizations/${org.id}.json`,
    });
    await expectServed(org.logo_url, logo);
  });

  test('retrieve, update (a new logo replaces the old), list oldest first, delete', async () => {
    expect(await alice.client.organizations.retrieve(org.id)).toEqual(org);

    const newLogo = pngBlob([30, 200, 30]);
    const updated = await alice.client.organizations.update(org.id, { name: 'Acme', logo: newLogo });
    expect(updated.name).toBe('Acme');
    await expectServed(updated.logo_url, newLogo);
    org = updated;

    const temp = await alice.client.organizations.create({ name: 'Temporary' });
    expect(temp.logo_url).toBeUndefined();
    expect((await alice.client.organizations.list()).data.map((o) => o.name)).toEqual(['Acme', 'Temporary']);

    await alice.client.organizations.delete(temp.id);
    await caught(alice.client.organizations.retrieve(temp.id), NotFoundError);
    expect((await alice.client.organizations.list()).data.map((o) => o.id)).toEqual([org.id]);
  });
  test('a logo given as bytes (a Buffer, no type) is stored as the PNG its bytes are', async () => {
    const bytes = Buffer.from(png(12, 8, [30, 30, 200]));
    const other = await alice.client.organizations.create({ name: 'Bytes', logo: bytes });
    await expectServed(other.logo_url, new Blob([bytes]));
    await alice.client.organizations.delete(other.id);
  });
});

describe('members', () => {
  test('added through the test helpers, listed admins first, role changed', async () => {
    bobMembership = await server.admin.testHelpers.addMember(org.id, {
      user_id: bob.user.id,
      role: 'member',
    });
    expect(bobMembership).toMatchObject({ role: 'member', is_owner: false, user: bob.user });

    const members = await alice.client.members.list(org.id);
    expect(members.data.map((m) => [m.user.name, m.role, m.is_owner])).toEqual([
      ['Alice Owner', 'admin', true],
      ['Bob Member', 'member', false],
    ]);
    aliceMembership = members.data[0] as Membership;

    const promoted = await alice.client.members.update(org.id, bobMembership.id, { role: 'admin' });
    expect(promoted).toMatchObject({ id: bobMembership.id, role: 'admin' });
    bobMembership = await alice.client.members.update(org.id, bobMembership.id, { role: 'member' });
    expect(bobMembership.role).toBe('member');
  });

  test('a member lacking the role gets PermissionDeniedError (403); a non-member NotFoundError (404)', async () => {
    expect((await bob.client.organizations.retrieve(org.id)).id).toBe(org.id);
    const denied = await caught(
      bob.client.organizations.update(org.id, { name: 'Bob’s' }),
      PermissionDeniedError,
    );
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: 'You are not allowed to perform this action' });
    await caught(bob.client.collabs.create(org.id, { name: 'Not mine to make' }), PermissionDeniedError);

    const hidden = await caught(carol.client.organizations.retrieve(org.id), NotFoundError);
    expect(hidden.body).toEqual({ error: 'Not found' });
    await caught(carol.client.members.list(org.id), NotFoundError);
  });

  test('guards answer ValidationError with the errors map', async () => {
    const error = await caught(
      alice.client.members.update(org.id, aliceMembership.id, { role: 'member' }),
      ValidationError,
    );
    expect(error.status).toBe(422);
    expect(error.errors).toEqual({
      role: expect.arrayContaining(['cannot be changed for the organization owner']),
    });
    expect(error.body).toEqual({ errors: error.errors });
  });
});

describe('collabs', () => {
  test('create with a banner (multipart), retrieve, update, list', async () => {
    const banner = pngBlob([20, 20, 220]);
    collab = await alice.client.collabs.create(org.id, {
      name: 'Summer launch',
      countries: ['us', 'ca'],
      currency: 'EUR',
      brief: '# Hello creators\n\nShow the **product**.',
      banner_image: banner,
    });
    expect(collab).toMatchObject({
      name: 'Summer launch',
      state: 'draft',
      countries: ['US', 'CA'],
      currency: 'eur',
    });
    expect(collab.brief).toContain('<strong>product</strong>');
    await expectServed(collab.banner_image_url, banner);

    expect(await alice.client.collabs.retrieve(org.id, collab.id)).toEqual(collab);
    collab = await alice.client.collabs.update(org.id, collab.id, { name: 'Summer launch 2026' });
    expect(collab.name).toBe('Summer launch 2026');
    expect((await bob.client.collabs.list(org.id)).data.map((c) => c.id)).toEqual([collab.id]);
  });

  test('transitions: the 303 is not followed, the collab is read again', async () => {
    const before = server.traffic.length;
    const submitted = await alice.client.collabs.submit(org.id, collab.id);
    expect(submitted).toMatchObject({ id: collab.id, state: 'submitted_for_review' });
    expect(server.traffic.slice(before).map((x) => [x.method, x.endpoint, x.status])).toEqual([
      ['POST', 'collabs.submit', 303],
      ['GET', 'collabs.retrieve', 200],
    ]);

    // The marketplace's review is a test helper.
    const published = await server.admin.testHelpers.setCollabState(org.id, collab.id, {
      state: 'published',
    });
    expect(published.published_at).not.toBeNull();
    expect((await alice.client.collabs.pause(org.id, collab.id)).state).toBe('paused');
    expect((await alice.client.collabs.unpause(org.id, collab.id)).state).toBe('published');

    const refused = await caught(alice.client.collabs.unpause(org.id, collab.id), ValidationError);
    expect(Object.keys(refused.errors)).toEqual(['state']);
  });

  test('submissions; only drafts can be deleted', async () => {
    await server.admin.testHelpers.createSubmission(org.id, collab.id);
    expect((await alice.client.collabs.retrieve(org.id, collab.id)).submissions_count).toBe(1);
    await caught(alice.client.collabs.delete(org.id, collab.id), PermissionDeniedError);

    // No body at all: a draft from the defaults. The prefill refuses a loopback address
    // (MARKETPLACE_PREFILL_ALLOW_PRIVATE is off), so the defaults stay.
    const draft = await alice.client.collabs.create(org.id, undefined, {
      website: `${server.url}/openapi.json`,
    });
    expect(draft).toMatchObject({ name: 'Untitled collab', state: 'draft', countries: ['US'] });
    await alice.client.collabs.delete(org.id, draft.id);
    await caught(alice.client.collabs.retrieve(org.id, draft.id), NotFoundError);
  });
});

describe('campaigns', () => {
  test('create with a banner, update; publishing needs a funding', async () => {
    const banner = pngBlob([240, 200, 10]);
    campaign = await alice.client.campaigns.create(org.id, {
      name: 'Autumn reels',
      cpm_amount: 250,
      min_payout_amount: 1_000,
      max_payout_amount: 50_000,
      platform_ids: ['youtube', 'x'],
      banner_image: banner,
    });
    expect(campaign).toMatchObject({
      status: 'draft',
      total_budget_amount: 0,
      platform_ids: ['youtube', 'x'],
    });
    await expectServed(campaign.banner_image_url, banner);
    campaign = await alice.client.campaigns.update(org.id, campaign.id, { countries: ['de', 'fr'] });
    expect(campaign.countries).toEqual(['DE', 'FR']);

    // The payout rule on the merged values is the server's to check.
    const payout = await caught(
      alice.client.campaigns.update(org.id, campaign.id, { min_payout_amount: 60_000 }),
      ValidationError,
    );
    expect(Object.keys(payout.errors)).toEqual(['min_payout_amount']);

    const unfunded = await caught(alice.client.campaigns.publish(org.id, campaign.id), ValidationError);
    expect(Object.keys(unfunded.errors)).toEqual(['total_budget_amount']);
  });

  test('null and an empty list travel in a multipart update too (found by review)', async () => {
    const draft = await alice.client.campaigns.create(org.id, {
      platform_ids: ['youtube'],
      platform_music_id: 'track-1',
    });
    const updated = await alice.client.campaigns.update(org.id, draft.id, {
      platform_ids: [],
      platform_music_id: null,
      banner_image: pngBlob([10, 10, 10]),
    });
    expect(updated).toMatchObject({ platform_ids: [], platform_music_id: null });
    await alice.client.campaigns.delete(org.id, draft.id);
  });

  test('funded through the test helpers, then published, paused, resumed, finished', async () => {
    const funding = await server.admin.testHelpers.createFunding(org.id, campaign.id, { amount: 100_000 });
    expect(funding.amount).toBe(100_000);
    expect((await alice.client.campaigns.retrieve(org.id, campaign.id)).total_budget_amount).toBe(100_000);

    const active = await alice.client.campaigns.publish(org.id, campaign.id);
    expect(active).toMatchObject({ status: 'active', unused_amount: 100_000 });
    expect(active.published_at).not.toBeNull();
    const paused = await alice.client.campaigns.pause(org.id, campaign.id);
    expect(paused.status).toBe('paused');
    expect(paused.paused_at).not.toBeNull();
    expect(await alice.client.campaigns.resume(org.id, campaign.id)).toMatchObject({
      status: 'active',
      paused_at: null,
    });

    const locked = await caught(
      alice.client.campaigns.update(org.id, campaign.id, { cpm_amount: 300, name: 'Autumn reels 2' }),
      ValidationError,
    );
    expect(Object.keys(locked.errors)).toEqual(['cpm_amount']);

    const finished = await server.admin.testHelpers.setCampaignStatus(org.id, campaign.id, {
      status: 'finished',
    });
    expect(finished.status).toBe('finished');
  });

  test('a draft is deleted; the list shows what remains', async () => {
    const draft = await alice.client.campaigns.create(org.id, { name: 'Scrapped' });
    expect((await bob.client.campaigns.list(org.id)).data.map((c) => c.name)).toEqual([
      'Scrapped',
      'Autumn reels',
    ]);
    await alice.client.campaigns.delete(org.id, draft.id);
    await caught(alice.client.campaigns.retrieve(org.id, draft.id), NotFoundError);
    expect((await alice.client.campaigns.list(org.id)).data.map((c) => c.id)).toEqual([campaign.id]);
  });
});

describe('organization guards', () => {
  test('an organization with a subscription, collabs or campaigns cannot be deleted', async () => {
    expect(await server.admin.testHelpers.setSubscription(org.id, { active: true })).toEqual({
      active: true,
    });
    const error = await caught(alice.client.organizations.delete(org.id), ValidationError);
    expect(Object.keys(error.errors)).toEqual(['base']);
    expect(await server.admin.testHelpers.setSubscription(org.id, { active: false })).toEqual({
      active: false,
    });
    await caught(alice.client.organizations.delete(org.id), ValidationError);
    // Owner only: anyone else gets 403.
    await caught(bob.client.organizations.delete(org.id), PermissionDeniedError);
  });

  test('a member leaves; the owner cannot be removed', async () => {
    await bob.client.members.delete(org.id, bobMembership.id);
    await caught(bob.client.organizations.retrieve(org.id), NotFoundError);
    expect((await alice.client.members.list(org.id)).totalCount).toBe(1);
    const owner = await caught(alice.client.members.delete(org.id, aliceMembership.id), ValidationError);
    expect(Object.keys(owner.errors)).toEqual(['base']);
  });
});

describe('me', () => {
  test('social accounts: connect, sync (test helper), retrieve, list, disconnect', async () => {
    const account = await alice.client.me.socialAccounts.create({
      platform_id: 'youtube',
      account_url: 'https://www.youtube.com/@acme',
    });
    expect(account).toMatchObject({ platform_id: 'youtube', status: 'pending', subscriber_count: null });

    const duplicate = await caught(
      bob.client.me.socialAccounts.create({
        platform_id: 'youtube',
        account_url: 'https://youtube.com/@acme/',
      }),
      ValidationError,
    );
    expect(Object.keys(duplicate.errors)).toEqual(['account_url']);

    const synced = await server.admin.testHelpers.syncSocialAccount(account.id, {
      status: 'verified',
      subscriber_count: 1_200,
      view_count: 50_000,
    });
    expect(synced).toMatchObject({ status: 'verified', subscriber_count: 1_200 });
    expect(synced.last_synced_at).not.toBeNull();
    expect(await alice.client.me.socialAccounts.retrieve(account.id)).toEqual(synced);
    expect((await alice.client.me.socialAccounts.list()).data.map((a) => a.id)).toEqual([account.id]);
    await caught(bob.client.me.socialAccounts.retrieve(account.id), NotFoundError);

    await alice.client.me.socialAccounts.delete(account.id);
    expect((await alice.client.me.socialAccounts.list()).totalCount).toBe(0);
  });

  test('address: null when none, created, merged, deleted', async () => {
    expect(await alice.client.me.address.retrieve()).toBeNull();
    const created = await alice.client.me.address.update({
      address_one: '1 Rue de Rivoli',
      city: 'Paris',
      state: 'IDF',
      postal_code: '75001',
      country_code: 'fr',
    });
    expect(created).toMatchObject({ city: 'Paris', country_code: 'FR', address_two: null });
    expect(await alice.client.me.address.retrieve()).toEqual(created);
    const moved = await alice.client.me.address.update({ city: 'Lyon', postal_code: '69001' });
    expect(moved).toMatchObject({ id: created.id, address_one: '1 Rue de Rivoli', city: 'Lyon' });
    await alice.client.me.address.delete();
    expect(await alice.client.me.address.retrieve()).toBeNull();
  });

  test('notification settings and push subscriptions', async () => {
    const settings = await alice.client.me.notificationSettings.retrieve();
    expect(settings.push_subscription_count).toBe(0);
    await server.admin.testHelpers.createPushSubscription(alice.user.id);
    const off = await alice.client.me.notificationSettings.update({ push_notifications_enabled: false });
    expect(off).toEqual({ push_notifications_enabled: false, push_subscription_count: 1 });
    expect(await alice.client.me.notificationSettings.retrieve()).toEqual(off);
  });

  test('notifications: a join request notifies the admins; > 20 items walked with for await and concurrency', async () => {
    await server.admin.testHelpers.createJoinRequest(org.id, { user_id: carol.user.id });
    for (let i = 1; i <= 44; i++)
      await server.admin.testHelpers.createNotification(alice.user.id, {
        type: 'Demo::PingNotifier',
        params: { n: i },
        record_type: 'Demo::Ping',
        record_id: `ping-${i}`,
      });

    const first = await alice.client.me.notifications.list();
    expect([first.page, first.pageItems, first.totalCount, first.totalPages, first.data.length]).toEqual([
      1, 20, 45, 3, 20,
    ]);
    expect(first.hasNextPage()).toBe(true);
    expect((await first.getNextPage()).page).toBe(2);
    expect((await alice.client.me.notifications.list({ page: 3 })).data).toHaveLength(5);

    const before = server.traffic.length;
    const walked = [];
    for await (const n of alice.client.me.notifications.list()) walked.push(n);
    expect(walked).toHaveLength(45);
    expect(new Set(walked.map((n) => n.id)).size).toBe(45);
    expect(walked[0]?.record_id).toBe('ping-44'); // newest first
    expect(walked.at(-1)).toMatchObject({
      type: 'Membership::JoinRequestReceivedNotifier',
      record_type: 'Membership::JoinRequest',
      params: { user_name: 'Carol Outsider', organization_name: 'Acme' },
    });
    expect(server.traffic.slice(before).map((x) => x.path)).toHaveLength(3);

    const parallel = await alice.client.me.notifications.list({}, { concurrency: 3 }).toArray();
    expect(parallel.map((n) => n.id)).toEqual(walked.map((n) => n.id));
    expect(await alice.client.me.notifications.list().toArray({ limit: 25 })).toEqual(walked.slice(0, 25));
  });

  test('access tokens: a read token reads but cannot write; revoked, it gets AuthenticationError', async () => {
    const created = await alice.client.me.accessTokens.create({
      description: 'Reporting',
      permission: 'read',
    });
    expect(created.token).toMatch(/^mkt_/);
    const listed = await alice.client.me.accessTokens.list();
    expect(listed.data.map((t) => t.description).sort()).toEqual(['Default token', 'Reporting'].sort());
    expect(listed.data.every((t) => !('token' in t))).toBe(true);

    const reader = server.client(created.token);
    expect((await reader.organizations.retrieve(org.id)).id).toBe(org.id);
    const write = await caught(reader.organizations.update(org.id, { name: 'Nope' }), AuthenticationError);
    expect(write.status).toBe(401);
    expect(write.headers.get('www-authenticate')).toBe('Token realm="Application"');

    await alice.client.me.accessTokens.delete(created.id);
    const revoked = await caught(reader.organizations.list(), AuthenticationError);
    expect(revoked.body).toBe('HTTP Token: Access denied.');
    expect((await alice.client.me.accessTokens.list()).data.map((t) => t.id)).not.toContain(created.id);
  });
});

describe('client behaviour', () => {
  test('ETag cache: the second retrieve is answered by a 304 from the cache', async () => {
    const seen: Exchange[] = [];
    const client = new Marketplace({ token: alice.token, baseUrl: server.url, fetch: recordingFetch(seen) });

    const first = await client.organizations.retrieve(org.id);
    const second = await client.organizations.retrieve(org.id);
    expect(second).toEqual(first);
    expect(seen.map((x) => [x.status, x.ifNoneMatch !== null])).toEqual([
      [200, false],
      [304, true],
    ]);

    // Its own update drops the cached copy; `cache: false` neither sends nor stores a tag.
    const renamed = await client.organizations.update(org.id, { name: 'Acme Worldwide' });
    expect(await client.organizations.retrieve(org.id)).toEqual(renamed);
    expect(await client.organizations.retrieve(org.id, { cache: false })).toEqual(renamed);
    expect(seen.slice(2).map((x) => [x.method, x.status, x.ifNoneMatch !== null])).toEqual([
      ['PATCH', 200, false],
      ['GET', 200, false],
      ['GET', 200, false],
    ]);
    org = renamed;
  });

  test('RequestValidationError: a bad payload is refused before anything is sent', async () => {
    const before = server.traffic.length;
    const error = await caught(
      alice.client.collabs.update(org.id, collab.id, { website: 'not a url', countries: ['XX'] }),
      RequestValidationError,
    );
    expect(Object.keys(error.errors).sort()).toEqual(['countries', 'website']);
    await caught(alice.client.organizations.create({ name: '' }), RequestValidationError);
    expect(server.traffic.length).toBe(before);
  });

  test('NotFoundError for an id that does not exist', async () => {
    const error = await caught(
      alice.client.organizations.retrieve(OrganizationId.parse('doesNotExist12')),
      NotFoundError,
    );
    expect(error.status).toBe(404);
    await caught(alice.client.campaigns.retrieve(org.id, CampaignId.parse('doesNotExist34')), NotFoundError);
  });

  test('request ids: each response has its own, on withResponse(), pages and errors', async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    const { data, response, requestId } = await alice.client.organizations.retrieve(org.id).withResponse();
    expect(data.id).toBe(org.id);
    expect(requestId).toMatch(uuid);
    expect(response.headers.get('x-request-id')).toBe(requestId);
    const page = await alice.client.organizations.list();
    expect(page.requestId).toMatch(uuid);
    expect(page.requestId).not.toBe(requestId);
    const error = await caught(
      alice.client.organizations.retrieve(OrganizationId.parse('doesNotExist56')),
      NotFoundError,
    );
    expect(error.requestId).toMatch(uuid);
  });
});

// Last before the tally: it empties the sandbox every test above built on.
test('testHelpers.reset() empties the sandbox: earlier tokens are refused, lists are empty', async () => {
  const { data: before } = await alice.client.organizations.list();
  expect(before.length).toBeGreaterThan(0);
  expect(await server.admin.testHelpers.reset()).toBeUndefined();
  await caught(alice.client.organizations.list(), AuthenticationError);
  await caught(bob.client.me.accessTokens.list(), AuthenticationError);
  const dave = await server.newUser('Dave');
  expect((await dave.client.organizations.list()).data).toEqual([]);
  await caught(dave.client.organizations.retrieve(org.id), NotFoundError);
});

test('every endpoint of the table was called through the SDK and answered its success status', () => {
  const answered = new Set(server.traffic.map((x) => `${x.endpoint} ${x.status}`));
  const missing = table.filter((e) => !answered.has(`${e.name} ${e.status}`)).map((e) => e.name);
  expect(missing).toEqual([]);
  // And nothing was sent that the table does not know (the upload files are fetched directly).
  expect(server.traffic.filter((x) => x.endpoint === undefined)).toEqual([]);
});
