import { describe, expect, it } from 'vitest';
import { fileOf, GIF, NOT_AN_IMAGE, PNG, useOrganization } from '../../../test/fixtures/organization.js';
import { PNG_UPLOAD_URL, STORAGE_DRIVERS, uploadName, useTestServer } from '../../../test/harness.js';

describe.each(STORAGE_DRIVERS)('campaign banners and multipart (%s storage)', (storage) => {
  const server = useTestServer({}, {}, { storage });
  const storedFiles = () => server.storedUploads();
  const org = useOrganization(server, 'campaigns');

  const countCampaigns = async () =>
    (await server.sql<{ n: number }>('select count(*)::int as n from campaigns'))[0]?.n;

  it('creates from a multipart form: integers, arrays and the banner', async () => {
    const form = new FormData();
    form.append('campaign[name]', 'Form campaign');
    form.append('campaign[cpm_amount]', '150');
    form.append('campaign[max_payout_amount]', '900');
    form.append('campaign[platform_ids][]', 'youtube');
    form.append('campaign[platform_ids][]', 'twitch');
    form.append('campaign[countries][]', 'us');
    form.append('campaign[countries][]', 'ca');
    form.append('campaign[banner_image]', fileOf(PNG, 'b.png', 'image/png'));
    const res = await server.post(`${org.base}.json`, { token: org.admin.token, form });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      name: 'Form campaign',
      cpm_amount: 150,
      max_payout_amount: 900,
      platform_ids: ['youtube', 'twitch'],
      countries: ['US', 'CA'],
      banner_image_url: expect.stringMatching(PNG_UPLOAD_URL),
    });
    expect((await server.getUpload(created.banner_image_url)).bytes).toEqual(PNG);
  });

  it('reads an empty value of a nullable field as null, and a lone empty `name[]` as the empty list', async () => {
    const created = await server.post(`${org.base}.json`, {
      token: org.admin.token,
      body: { campaign: { platform_music_id: 'track-1', platform_ids: ['youtube'], countries: ['US'] } },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id;
    const form = new FormData();
    form.append('campaign[platform_music_id]', '');
    form.append('campaign[platform_ids][]', '');
    form.append('campaign[countries][]', '');
    form.append('campaign[countries][]', 'ca');
    form.append('campaign[banner_image]', fileOf(PNG, 'b.png', 'image/png'));
    const res = await server.patch(`${org.base}/${id}.json`, { token: org.admin.token, form });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ platform_music_id: null, platform_ids: [], countries: ['CA'] });
    const [row] = await server.sql<{ platform_music_id: string | null }>(
      'select platform_music_id from campaigns where id = ?',
      [id],
    );
    expect(row?.platform_music_id).toBeNull();
  });

  it('refuses a multipart amount that is not an integer', async () => {
    const form = new FormData();
    form.append('campaign[cpm_amount]', 'lots');
    const res = await server.post(`${org.base}.json`, { token: org.admin.token, form });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { cpm_amount: ['must be an integer'] } });
  });

  it.each([
    ['not an image', NOT_AN_IMAGE, 'must be a PNG, JPEG, WebP or GIF image'],
    ['too large', Buffer.concat([PNG, Buffer.alloc(64 * 1024)]), 'is too large (maximum is 65536 bytes)'],
  ])('refuses a banner that is %s and stores nothing', async (_label, data, message) => {
    const form = new FormData();
    form.append('campaign[name]', 'X');
    form.append('campaign[banner_image]', fileOf(data, 'b.png', 'image/png'));
    const res = await server.post(`${org.base}.json`, { token: org.admin.token, form });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { banner_image: [message] } });
    expect(await countCampaigns()).toBe(0);
    expect(await storedFiles()).toEqual([]);
  });

  it('replaces, purges and deletes banners with their files', async () => {
    const first = new FormData();
    first.append('campaign[banner_image]', fileOf(PNG, 'a.png', 'image/png'));
    const created = (await server.post(`${org.base}.json`, { token: org.admin.token, form: first })).json();
    const second = new FormData();
    second.append('campaign[banner_image]', fileOf(GIF, 'b.gif', 'image/gif'));
    const replaced = (
      await server.patch(`${org.base}/${created.id}.json`, { token: org.admin.token, form: second })
    ).json();
    expect(await storedFiles()).toEqual([uploadName(replaced.banner_image_url)]);
    const purged = await server.patch(`${org.base}/${created.id}.json`, {
      token: org.admin.token,
      body: { campaign: { purge_banner_image: '1' } },
    });
    expect(purged.json().banner_image_url).toBeNull();
    expect(await storedFiles()).toEqual([]);

    const third = new FormData();
    third.append('campaign[banner_image]', fileOf(PNG, 'c.png', 'image/png'));
    await server.patch(`${org.base}/${created.id}.json`, { token: org.admin.token, form: third });
    expect(await storedFiles()).toHaveLength(1);
    expect(
      (await server.delete(`${org.base}/${created.id}.json`, { token: org.admin.token })).statusCode,
    ).toBe(204);
    expect(await storedFiles()).toEqual([]);
  });
});
