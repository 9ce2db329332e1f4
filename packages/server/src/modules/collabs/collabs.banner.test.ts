import { describe, expect, it } from 'vitest';
import { fileOf, GIF, NOT_AN_IMAGE, PNG, useOrganization } from '../../../test/fixtures/organization.js';
import { PNG_UPLOAD_URL, STORAGE_DRIVERS, uploadName, useTestServer } from '../../../test/harness.js';

describe.each(STORAGE_DRIVERS)('collab banner images (%s storage)', (storage) => {
  const server = useTestServer({}, {}, { storage });
  const storedFiles = () => server.storedUploads();
  const org = useOrganization(server, 'collabs');

  const collabRows = () =>
    server.sql<{ id: string; name: string; state: string; currency: string }>(
      'select id, name, state, currency from collabs order by name',
    );

  function collabForm(fields: Array<[string, string]>, banner?: File) {
    const form = new FormData();
    for (const [key, value] of fields) form.append(key, value);
    if (banner) form.append('collab[banner_image]', banner);
    return form;
  }

  /** A collab with the defaults and a PNG banner. */
  async function createWithBanner() {
    const res = await server.post(`${org.base}.json`, {
      token: org.admin.token,
      form: collabForm([], fileOf(PNG, 'a.png', 'image/png')),
    });
    expect(res.statusCode).toBe(201);
    return res.json();
  }

  it('creates from a multipart form: fields coerced to their types, banner stored and served', async () => {
    const res = await server.post(`${org.base}.json`, {
      token: org.admin.token,
      form: collabForm(
        [
          ['collab[name]', 'Form collab'],
          ['collab[currency]', 'GBP'],
          ['collab[countries][]', 'gb'],
          ['collab[countries][]', 'IE'],
          ['collab[require_boosted_ads]', 'true'],
          ['collab[requires_product_shipment]', '0'],
          ['collab[website]', 'https://form.example'],
          ['collab[brief]', '*hi*'],
          ['other[name]', 'ignored'],
        ],
        // The declared type is not trusted: the bytes are.
        fileOf(PNG, 'banner.txt', 'text/plain'),
      ),
    });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      name: 'Form collab',
      currency: 'gbp',
      countries: ['GB', 'IE'],
      require_boosted_ads: true,
      requires_product_shipment: false,
      website: 'https://form.example',
      brief: '<p><em>hi</em></p>',
      banner_image_url: expect.stringMatching(PNG_UPLOAD_URL),
    });
    const name = uploadName(created.banner_image_url);
    expect(await storedFiles()).toEqual([name]);
    expect(await server.sql('select banner_image from collabs')).toEqual([{ banner_image: name }]);
    expect(await server.getUpload(created.banner_image_url)).toEqual({
      status: 200,
      type: 'image/png',
      bytes: PNG,
    });
  });

  it('refuses a banner that is not an image, and stores nothing', async () => {
    const res = await server.post(`${org.base}.json`, {
      token: org.admin.token,
      form: collabForm([['collab[name]', 'X']], fileOf(NOT_AN_IMAGE, 'banner.png', 'image/png')),
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { banner_image: ['must be a PNG, JPEG, WebP or GIF image'] } });
    expect(await collabRows()).toEqual([]);
    expect(await storedFiles()).toEqual([]);
  });

  it('refuses a banner over the size limit, and stores nothing', async () => {
    const big = Buffer.concat([PNG, Buffer.alloc(server.config.maxUploadBytes)]);
    const res = await server.post(`${org.base}.json`, {
      token: org.admin.token,
      form: collabForm([['collab[name]', 'X']], fileOf(big, 'banner.png', 'image/png')),
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      errors: { banner_image: [`is too large (maximum is ${server.config.maxUploadBytes} bytes)`] },
    });
    expect(await collabRows()).toEqual([]);
    expect(await storedFiles()).toEqual([]);
  });

  it.each([
    ['not an image', NOT_AN_IMAGE, 'must be a PNG, JPEG, WebP or GIF image'],
    ['too large', 'big', 'is too large'],
  ])(
    'lists a banner that is %s beside a broken field, every broken field at once (found by review)',
    async (_label, data, message) => {
      const bytes = data === 'big' ? Buffer.concat([PNG, Buffer.alloc(server.config.maxUploadBytes)]) : data;
      const res = await server.post(`${org.base}.json`, {
        token: org.admin.token,
        form: collabForm([['collab[name]', '']], fileOf(bytes as Buffer, 'banner.png', 'image/png')),
      });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({
        errors: { name: ["can't be blank"], banner_image: [expect.stringContaining(message)] },
      });
      expect(await collabRows()).toEqual([]);
      expect(await storedFiles()).toEqual([]);
    },
  );

  it('replaces the banner on update (the old file goes) and removes it with purge_banner_image', async () => {
    const first = await createWithBanner();
    const oldName = uploadName(first.banner_image_url);

    const replaced = await server.patch(`${org.base}/${first.id}.json`, {
      token: org.admin.token,
      form: collabForm([['collab[name]', 'New name']], fileOf(GIF, 'b.gif', 'image/gif')),
    });
    expect(replaced.statusCode).toBe(200);
    const newName = uploadName(replaced.json().banner_image_url);
    expect(newName).toMatch(/\.gif$/);
    expect(replaced.json().name).toBe('New name');
    expect(await storedFiles()).toEqual([newName]);
    expect((await server.get(`/uploads/${oldName}`)).statusCode).toBe(404);

    const purged = await server.patch(`${org.base}/${first.id}.json`, {
      token: org.admin.token,
      body: { collab: { purge_banner_image: '1' } },
    });
    expect(purged.statusCode).toBe(200);
    expect(purged.json().banner_image_url).toBeNull();
    expect(await storedFiles()).toEqual([]);
    expect(await server.sql('select banner_image from collabs')).toEqual([{ banner_image: null }]);
  });

  it('keeps the banner on an update without a file, and with purge_banner_image "0"', async () => {
    const first = await createWithBanner();
    const res = await server.patch(`${org.base}/${first.id}.json`, {
      token: org.admin.token,
      body: { collab: { name: 'Renamed', purge_banner_image: '0' } },
    });
    expect(res.json().banner_image_url).toBe(first.banner_image_url);
    expect(await storedFiles()).toEqual([uploadName(first.banner_image_url)]);
  });

  it('refuses a bad banner on update and leaves the collab and its banner alone', async () => {
    const first = await createWithBanner();
    const res = await server.patch(`${org.base}/${first.id}.json`, {
      token: org.admin.token,
      form: collabForm([['collab[name]', 'Changed']], fileOf(NOT_AN_IMAGE, 'x.png', 'image/png')),
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { banner_image: ['must be a PNG, JPEG, WebP or GIF image'] } });
    expect(await collabRows()).toEqual([
      { id: first.id, name: 'Untitled collab', state: 'draft', currency: 'usd' },
    ]);
    expect(await storedFiles()).toEqual([uploadName(first.banner_image_url)]);
  });

  it('removes the banner file when the collab is deleted', async () => {
    const first = await createWithBanner();
    expect(await storedFiles()).toHaveLength(1);
    expect((await server.delete(`${org.base}/${first.id}.json`, { token: org.admin.token })).statusCode).toBe(
      204,
    );
    expect(await storedFiles()).toEqual([]);
  });
});
