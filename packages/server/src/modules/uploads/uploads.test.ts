import { SERVICE_UNAVAILABLE_MESSAGE } from '@app/schemas';
import { describe, expect, it } from 'vitest';
import { fileOf, GIF, PNG, setUpOrganization } from '../../../test/fixtures/organization.js';
import { STORAGE_DRIVERS, uploadName, useTestServer } from '../../../test/harness.js';

function orgForm(fields: Record<string, string>, logo?: Buffer) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(`organization[${key}]`, value);
  if (logo) form.append('organization[logo]', fileOf(logo, 'logo.png', 'image/png'));
  return form;
}

describe.each(STORAGE_DRIVERS)('the upload store (%s)', (storage) => {
  const server = useTestServer({}, {}, { storage });

  it('serves an upload with its type, length and the caching and safety headers', async () => {
    const { token } = await server.createUser();
    const created = await server.post('/organizations.json', { token, form: orgForm({ name: 'A' }, GIF) });
    expect(created.statusCode).toBe(201);
    const res = await server.get(`/uploads/${uploadName(created.json().logo_url)}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      'content-type': 'image/gif',
      'content-length': String(GIF.length),
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'",
    });
    expect(res.rawPayload.equals(GIF)).toBe(true);
    // The name is the ETag: a client that has the file gets 304 and no body.
    const name = uploadName(created.json().logo_url);
    expect(res.headers.etag).toBe(`"${name}"`);
    for (const ifNoneMatch of [`"${name}"`, `W/"${name}", "other"`, '*']) {
      const again = await server.app.inject({
        url: `/uploads/${name}`,
        headers: { 'if-none-match': ifNoneMatch },
      });
      expect(again.statusCode, ifNoneMatch).toBe(304);
      expect(again.rawPayload.length).toBe(0);
      expect(again.headers.etag).toBe(`"${name}"`);
      expect(again.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    const other = await server.app.inject({
      url: `/uploads/${name}`,
      headers: { 'if-none-match': '"other"' },
    });
    expect(other.statusCode).toBe(200);
    expect(other.rawPayload.equals(GIF)).toBe(true);
    expect((await server.get('/uploads/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.png')).statusCode).toBe(404);
    expect((await server.get('/uploads/..%2Fpglite.png')).statusCode).toBe(404);
  });

  it('answers 503 with Retry-After when the store fails, leaving the database as it was', async () => {
    const org = await setUpOrganization(server);
    const { token } = org.admin;
    const created = await server.post('/organizations.json', { token, form: orgForm({ name: 'Kept' }, PNG) });
    expect(created.statusCode).toBe(201);
    const { id, logo_url } = created.json();
    const before = await server.sql('select id, name, logo from organizations order by id');

    await server.breakUploadStore();

    const expect503 = (res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) => {
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.json()).toEqual({ error: SERVICE_UNAVAILABLE_MESSAGE });
    };
    // A new logo: nothing is written.
    expect503(await server.post('/organizations.json', { token, form: orgForm({ name: 'New' }, PNG) }));
    // A replaced logo: the row keeps its name and its old logo.
    expect503(
      await server.patch(`/organizations/${id}.json`, { token, form: orgForm({ name: 'Renamed' }, GIF) }),
    );
    // A banner of a new collab or campaign, and of an update.
    const banner = (key: string) => {
      const form = new FormData();
      form.append(`${key}[name]`, 'With banner');
      form.append(`${key}[banner_image]`, fileOf(PNG, 'b.png', 'image/png'));
      return form;
    };
    const collabs = `/organizations/${org.id}/collabs`;
    expect503(await server.post(`${collabs}.json`, { token, form: banner('collab') }));
    expect503(
      await server.post(`/organizations/${org.id}/campaigns.json`, { token, form: banner('campaign') }),
    );
    const collab = await server.post(`${collabs}.json`, { token, body: { collab: { name: 'Plain' } } });
    expect(collab.statusCode).toBe(201);
    expect503(await server.patch(`${collabs}/${collab.json().id}.json`, { token, form: banner('collab') }));
    // Serving needs the store too.
    expect503(await server.get(`/uploads/${uploadName(logo_url)}`));

    expect(await server.sql('select id, name, logo from organizations order by id')).toEqual(before);
    expect(await server.sql('select name, banner_image from collabs')).toEqual([
      { name: 'Plain', banner_image: null },
    ]);
    expect(await server.sql('select id from campaigns')).toEqual([]);

    // Purging needs no new object: the row stops naming the logo, and the object that could not
    // be deleted is left unreferenced (logged), never the other way round.
    const purged = await server.patch(`/organizations/${id}.json`, {
      token,
      body: { organization: { purge_logo: '1' } },
    });
    expect(purged.statusCode).toBe(200);
    expect(await server.sql('select logo from organizations where id = ?', [id])).toEqual([{ logo: null }]);
  });
});
