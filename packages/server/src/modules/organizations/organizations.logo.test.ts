import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PNG_UPLOAD_URL, STORAGE_DRIVERS, uploadName, useTestServer } from '../../../test/harness.js';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(64)]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(64)]);
const GIF = Buffer.concat([Buffer.from('GIF89a', 'latin1'), randomBytes(64)]);
const WEBP = Buffer.concat([
  Buffer.from('RIFF', 'latin1'),
  Buffer.from([0x40, 0, 0, 0]),
  Buffer.from('WEBP', 'latin1'),
  randomBytes(64),
]);
const IMAGE_TYPE_ERROR = { errors: { logo: ['must be a PNG, JPEG, WebP or GIF image'] } };

function form(fields: Record<string, string>, logo?: { data: Buffer; type?: string; name?: string }) {
  const data = new FormData();
  for (const [key, value] of Object.entries(fields)) data.append(`organization[${key}]`, value);
  if (logo) {
    data.append(
      'organization[logo]',
      new Blob([new Uint8Array(logo.data)], { type: logo.type ?? 'image/png' }),
      logo.name ?? 'logo.png',
    );
  }
  return data;
}

describe.each(STORAGE_DRIVERS)('organization logo upload (%s storage)', (storage) => {
  const server = useTestServer({}, {}, { storage });
  const storedFiles = () => server.storedUploads();

  async function createWithLogo(token: string, data: Buffer = PNG) {
    const res = await server.post('/organizations.json', { token, form: form({ name: 'Acme' }, { data }) });
    expect(res.statusCode).toBe(201);
    return res.json();
  }

  it('stores a logo sent as multipart and serves the same bytes at logo_url without a token', async () => {
    const { token } = await server.createUser();
    const res = await server.post('/organizations.json', {
      token,
      form: form(
        { name: 'Acme', privacy_setting: 'public', website: 'https://acme.example/' },
        { data: PNG },
      ),
    });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      name: 'Acme',
      privacy_setting: 'public',
      website: 'https://acme.example/',
    });
    expect(created.logo_url).toMatch(PNG_UPLOAD_URL);
    const name = uploadName(created.logo_url);
    expect(await storedFiles()).toEqual([name]);
    expect(await server.sql('select logo from organizations')).toEqual([{ logo: name }]);

    expect(await server.getUpload(created.logo_url)).toEqual({ status: 200, type: 'image/png', bytes: PNG });

    const shown = await server.get(`/organizations/${created.id}.json`, { token });
    expect(shown.json().logo_url).toBe(created.logo_url);
  });

  it.each([
    ['JPEG', JPEG, 'jpg'],
    ['GIF', GIF, 'gif'],
    ['WebP', WEBP, 'webp'],
  ])('accepts a %s logo, recognised by its content', async (_label, data, ext) => {
    const { token } = await server.createUser();
    // The declared type and file name are not trusted: only the bytes count.
    const res = await server.post('/organizations.json', {
      token,
      form: form({ name: 'Acme' }, { data, type: 'text/plain', name: 'logo.txt' }),
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().logo_url).toMatch(new RegExp(`\\.${ext}$`));
    expect(await storedFiles()).toHaveLength(1);
  });

  it('refuses a file that is not an image with 422 on logo, storing nothing', async () => {
    const { token } = await server.createUser();
    const res = await server.post('/organizations.json', {
      token,
      form: form({ name: 'Acme' }, { data: Buffer.from('<svg onload="alert(1)"></svg>'), type: 'image/png' }),
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual(IMAGE_TYPE_ERROR);
    expect(await server.sql('select id from organizations')).toEqual([]);
    expect(await server.sql('select id from memberships')).toEqual([]);
    expect(await storedFiles()).toEqual([]);
  });

  it('refuses a logo over the size limit with 422 on logo, storing nothing', async () => {
    const { token } = await server.createUser();
    const big = Buffer.concat([PNG, Buffer.alloc(server.config.maxUploadBytes)]);
    const res = await server.post('/organizations.json', {
      token,
      form: form({ name: 'Acme' }, { data: big }),
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      errors: { logo: [`is too large (maximum is ${server.config.maxUploadBytes} bytes)`] },
    });
    expect(await server.sql('select id from organizations')).toEqual([]);
    expect(await storedFiles()).toEqual([]);
  });

  it('stores nothing when a field of the same form is invalid', async () => {
    const { token } = await server.createUser();
    const res = await server.post('/organizations.json', {
      token,
      form: form({ name: '', website: 'not a url' }, { data: PNG }),
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      errors: { name: ["can't be blank"], website: ['must be an http or https URL'] },
    });
    expect(await server.sql('select id from organizations')).toEqual([]);
    expect(await storedFiles()).toEqual([]);
  });

  it('removes the stored file and leaves no organization when the database write fails', async () => {
    const { token } = await server.createUser();
    // Make the owner's membership insert fail after the organization row and the file exist.
    await server.sql(`create or replace function refuse_membership() returns trigger language plpgsql as
      $$ begin raise exception 'refused by test'; end $$`);
    await server.sql(
      'create trigger refuse_membership before insert on memberships for each row execute function refuse_membership()',
    );
    try {
      const res = await server.post('/organizations.json', {
        token,
        form: form({ name: 'Acme' }, { data: PNG }),
      });
      expect(res.statusCode).toBe(500);
    } finally {
      await server.sql('drop trigger refuse_membership on memberships');
      await server.sql('drop function refuse_membership()');
    }
    expect(await server.sql('select id from organizations')).toEqual([]);
    expect(await server.sql('select id from memberships')).toEqual([]);
    expect(await storedFiles()).toEqual([]);
  });

  it('replaces the logo on update and removes the old file', async () => {
    const { token } = await server.createUser();
    const org = await createWithLogo(token);
    const oldName = uploadName(org.logo_url);
    const res = await server.patch(`/organizations/${org.id}.json`, {
      token,
      form: form({ name: 'Acme 2' }, { data: GIF, name: 'new.gif' }),
    });
    expect(res.statusCode).toBe(200);
    const updated = res.json();
    expect(updated.name).toBe('Acme 2');
    expect(updated.logo_url).toMatch(/\.gif$/);
    const newName = uploadName(updated.logo_url);
    expect(await storedFiles()).toEqual([newName]);
    expect((await server.get(`/uploads/${oldName}`)).statusCode).toBe(404);
    expect((await server.get(`/uploads/${newName}`)).rawPayload.equals(GIF)).toBe(true);
  });

  it('keeps the old logo when the new upload is refused', async () => {
    const { token } = await server.createUser();
    const org = await createWithLogo(token);
    const res = await server.patch(`/organizations/${org.id}.json`, {
      token,
      form: form({ name: 'Renamed' }, { data: Buffer.from('%PDF-1.7') }),
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual(IMAGE_TYPE_ERROR);
    expect(await storedFiles()).toEqual([uploadName(org.logo_url)]);
    expect(await server.sql('select name, logo from organizations')).toEqual([
      { name: 'Acme', logo: uploadName(org.logo_url) },
    ]);
  });

  it('removes the logo with purge_logo "1": the file is deleted and logo_url disappears', async () => {
    const { token } = await server.createUser();
    const org = await createWithLogo(token);
    const kept = await server.patch(`/organizations/${org.id}.json`, {
      token,
      body: { organization: { purge_logo: '0' } },
    });
    expect(kept.json().logo_url).toBe(org.logo_url);

    const res = await server.patch(`/organizations/${org.id}.json`, {
      token,
      body: { organization: { purge_logo: '1' } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).not.toHaveProperty('logo_url');
    expect(await server.sql('select logo from organizations')).toEqual([{ logo: null }]);
    expect(await storedFiles()).toEqual([]);
    expect((await server.get(`/uploads/${uploadName(org.logo_url)}`)).statusCode).toBe(404);
    const shown = await server.get(`/organizations/${org.id}.json`, { token });
    expect(shown.json()).not.toHaveProperty('logo_url');
  });

  it('takes purge_logo from a multipart form too', async () => {
    const { token } = await server.createUser();
    const org = await createWithLogo(token);
    const res = await server.patch(`/organizations/${org.id}.json`, {
      token,
      form: form({ purge_logo: '1' }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).not.toHaveProperty('logo_url');
    expect(await storedFiles()).toEqual([]);
  });

  it('removes the logo file when the organization is deleted', async () => {
    const { token } = await server.createUser();
    const org = await createWithLogo(token);
    expect(await storedFiles()).toHaveLength(1);
    expect((await server.delete(`/organizations/${org.id}.json`, { token })).statusCode).toBe(204);
    expect(await storedFiles()).toEqual([]);
  });

  it('leaves the logo alone when an update is refused by role', async () => {
    const owner = await server.createUser();
    const org = await createWithLogo(owner.token);
    const stranger = await server.createUser();
    const res = await server.patch(`/organizations/${org.id}.json`, {
      token: stranger.token,
      form: form({ purge_logo: '1' }, { data: JPEG }),
    });
    expect(res.statusCode).toBe(404);
    expect(await storedFiles()).toEqual([uploadName(org.logo_url)]);
  });
});
