/**
 * Client mistakes and oversized forms are answered 4xx in the documented shapes, never 500, and
 * change nothing.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { TEST_HELPERS_KEY, useTestServer } from './harness.js';

const server = useTestServer();

const BOUNDARY = 'XyZ0123456789';

/** A multipart body from raw parts (`head` lines of each part, then its content). */
function multipart(parts: { head: string; content: string | Buffer }[], close = true): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(
      Buffer.from(`--${BOUNDARY}\r\n${part.head}\r\n\r\n`),
      Buffer.from(part.content),
      Buffer.from('\r\n'),
    );
  }
  if (close) chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

async function postForm(
  token: string,
  body: Buffer,
  contentType = `multipart/form-data; boundary=${BOUNDARY}`,
) {
  return server.post('/organizations.json', { token, body, headers: { 'content-type': contentType } });
}

const field = (name: string, value: string, type?: string) => ({
  head: `Content-Disposition: form-data; name="${name}"${type ? `\r\nContent-Type: ${type}` : ''}`,
  content: value,
});

async function organizationCount() {
  return (await server.sql('select id from organizations')).length;
}

describe('malformed multipart requests', () => {
  it('a part declared as JSON that is not JSON: 400', async () => {
    const { token } = await server.createUser();
    const res = await postForm(
      token,
      multipart([field('organization[name]', '{not json', 'application/json')]),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: expect.any(String) });
    expect(await organizationCount()).toBe(0);
  });

  it('a body without its closing boundary: 400', async () => {
    const { token } = await server.createUser();
    const res = await postForm(token, multipart([field('organization[name]', 'Acme')], false));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: expect.any(String) });
    expect(await organizationCount()).toBe(0);
  });

  it('multipart/form-data without a boundary: 400', async () => {
    const { token } = await server.createUser();
    const res = await postForm(
      token,
      multipart([field('organization[name]', 'Acme')]),
      'multipart/form-data',
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: expect.any(String) });
    expect(await organizationCount()).toBe(0);
  });
});

describe('multipart size caps', () => {
  it('unknown fields are dropped without being kept, and the form still works', async () => {
    const { token } = await server.createUser();
    const parts = [
      field('organization[name]', 'Acme'),
      ...Array.from({ length: 20 }, (_, i) => field(`junk${i}`, 'x')),
    ];
    const res = await postForm(token, multipart(parts));
    expect(res.statusCode).toBe(201);
    expect(res.json().name).toBe('Acme');
  });

  it('a field value over the field cap: 413, nothing stored', async () => {
    const { token } = await server.createUser();
    const big = 'a'.repeat(1024 * 1024);
    const res = await postForm(token, multipart([field('organization[name]', 'Acme'), field('junk', big)]));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: expect.any(String) });
    expect(await organizationCount()).toBe(0);
  });

  it('too many fields: 413, nothing stored', async () => {
    const { token } = await server.createUser();
    const parts = [
      field('organization[name]', 'Acme'),
      ...Array.from({ length: 300 }, (_, i) => field(`f${i}`, 'x')),
    ];
    const res = await postForm(token, multipart(parts));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: expect.any(String) });
    expect(await organizationCount()).toBe(0);
  });

  it('a form larger in total than the cap: 413, nothing stored', async () => {
    const { token } = await server.createUser();
    // Each field is under the field cap; together they are far over the total cap.
    const parts = [
      field('organization[name]', 'Acme'),
      ...Array.from({ length: 150 }, (_, i) => field(`f${i}`, 'b'.repeat(60 * 1024))),
    ];
    const res = await postForm(token, multipart(parts));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: expect.any(String) });
    expect(await organizationCount()).toBe(0);
  });
});

describe('deeply nested JSON', () => {
  const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;

  it('a 200 000-deep array in a test-helper body: 4xx in the documented shape', async () => {
    const { user } = await server.createUser();
    const res = await server.post(`/test_helpers/users/${user.id}/notifications.json`, {
      token: TEST_HELPERS_KEY,
      body: `{"notification": {"type": "Membership::JoinRequestReceivedNotifier", "record_type": "Membership::JoinRequest", "record_id": "x", "params": {"user_name": ${deep}}}}`,
    });
    expect([400, 422]).toContain(res.statusCode);
    expect(Object.keys(res.json())).toEqual([res.statusCode === 400 ? 'error' : 'errors']);
    expect(await server.sql('select id from notifications')).toHaveLength(0);
  });

  it('a 200 000-deep array in an API payload: 4xx in the documented shape', async () => {
    const { token } = await server.createUser();
    const res = await server.post('/organizations.json', {
      token,
      body: `{"organization": {"name": ${deep}}}`,
    });
    expect([400, 422]).toContain(res.statusCode);
    expect(Object.keys(res.json())).toEqual([res.statusCode === 400 ? 'error' : 'errors']);
    expect(await organizationCount()).toBe(0);
  });
});

describe('JSON bodies that are not UTF-8', () => {
  it.each([
    [
      'a Latin-1 byte',
      'application/json; charset=latin1',
      Buffer.from('{"organization": {"name": "caf\xe9"}}', 'latin1'),
    ],
    [
      'a lone continuation byte',
      'application/json',
      Buffer.from([...Buffer.from('{"organization": {"name": "a'), 0x80, ...Buffer.from('"}}')]),
    ],
  ])('%s: 400 in the documented shape, nothing stored', async (_label, contentType, body) => {
    const { token } = await server.createUser();
    const res = await server.post('/organizations.json', {
      token,
      body,
      headers: { 'content-type': contentType },
    });
    expect([res.statusCode, res.json()]).toEqual([400, { error: 'The request body is not valid UTF-8' }]);
    expect(await organizationCount()).toBe(0);
  });

  it('UTF-8 whatever the charset label says (JSON is UTF-8)', async () => {
    const { token } = await server.createUser();
    const body = Buffer.from(JSON.stringify({ organization: { name: 'Café ☕' } }));
    const res = await server.post('/organizations.json', {
      token,
      body,
      headers: { 'content-type': 'application/json; charset=latin1' },
    });
    expect([res.statusCode, res.json().name]).toEqual([201, 'Café ☕']);
  });
});

describe('compressed bodies (hostile-client trial)', () => {
  const payload = Buffer.from(JSON.stringify({ organization: { name: 'Zipped' } }));
  const form = Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="organization[name]"\r\n\r\nZipped\r\n`,
    ),
    Buffer.from(`--${BOUNDARY}--\r\n`),
  ]);

  it.each([
    ['gzip', gzipSync(payload)],
    ['deflate', deflateSync(payload)],
    ['br', brotliCompressSync(payload)],
    ['GZip', gzipSync(payload)],
    ['identity, gzip', gzipSync(payload)],
  ])('Content-Encoding: %s is 415 saying so, nothing decompressed or stored', async (coding, body) => {
    const { token } = await server.createUser();
    for (const contentType of ['application/json', `multipart/form-data; boundary=${BOUNDARY}`]) {
      const res = await server.post('/organizations.json', {
        token,
        body: contentType === 'application/json' ? body : form,
        headers: { 'content-type': contentType, 'content-encoding': coding },
      });
      expect([contentType, res.statusCode]).toEqual([contentType, 415]);
      expect(res.json()).toEqual({ error: expect.stringMatching(/content encoding .*not supported/i) });
      expect(res.headers['accept-encoding']).toBe('identity');
    }
    expect(await organizationCount()).toBe(0);
  });

  it('Content-Encoding: identity is no coding: the body is read as it is', async () => {
    const { token } = await server.createUser();
    for (const coding of ['identity', 'Identity', '']) {
      const res = await server.post('/organizations.json', {
        token,
        body: payload,
        headers: { 'content-type': 'application/json', 'content-encoding': coding },
      });
      expect([coding, res.statusCode]).toEqual([coding, 201]);
    }
  });

  it('is checked after the token, and a coding without a body is no body', async () => {
    const { token } = await server.createUser();
    const headers = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
    const anonymous = await server.post('/organizations.json', { body: gzipSync(payload), headers });
    expect(anonymous.statusCode).toBe(401);
    const org = await server.post('/organizations.json', { token, body: payload });
    const removed = await server.delete(`/organizations/${org.json().id}.json`, { token, headers });
    expect(removed.statusCode).toBe(204);
  });
});

describe('bodies in a content type the endpoint does not take (found by review)', () => {
  async function organization(token: string) {
    return (
      await server.post('/organizations.json', { token, body: { organization: { name: 'Acme' } } })
    ).json();
  }

  it('a JSON text sent as text/plain (fetch without a content type does that) is 415, nothing stored', async () => {
    const { token } = await server.createUser();
    const org = await organization(token);
    const headers = { 'content-type': 'text/plain;charset=UTF-8' };
    const create = await server.post(`/organizations/${org.id}/collabs.json`, {
      token,
      body: JSON.stringify({ collab: { name: 'X' } }),
      headers,
    });
    expect(create.statusCode).toBe(415);
    expect(create.json()).toEqual({ error: expect.stringContaining('application/json') });
    const settings = await server.patch('/me/notification_settings.json', {
      token,
      body: JSON.stringify({ push_notifications_enabled: false }),
      headers,
    });
    expect(settings.statusCode).toBe(415);
    expect(await server.sql('select id from collabs')).toEqual([]);
  });

  it('a multipart form to an endpoint that takes no files is 415, nothing stored', async () => {
    const { token } = await server.createUser();
    const res = await server.post('/me/access_tokens.json', {
      token,
      body: multipart([field('access_token[description]', 'x'), field('access_token[permission]', 'read')]),
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ error: expect.stringContaining('application/json') });
  });

  it('a multipart form without the wrapper key is the JSON body {}: 422 "is missing" where one is required', async () => {
    const { token } = await server.createUser();
    const org = await organization(token);
    const headers = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
    const campaign = await server.post(`/organizations/${org.id}/campaigns.json`, {
      token,
      body: multipart([field('name', 'plain')]),
      headers,
    });
    expect(campaign.statusCode).toBe(422);
    expect(campaign.json()).toEqual({ errors: { campaign: ['is missing'] } });
    const update = await server.patch(`/organizations/${org.id}.json`, {
      token,
      body: multipart([field('name', 'plain')]),
      headers,
    });
    expect(update.statusCode).toBe(422);
    expect(update.json()).toEqual({ errors: { organization: ['is missing'] } });
    expect(await server.sql('select id from campaigns')).toEqual([]);
  });

  it('text in a file field is 422 on that field, nothing changed', async () => {
    const { token } = await server.createUser();
    const org = await organization(token);
    const res = await server.patch(`/organizations/${org.id}.json`, {
      token,
      body: multipart([field('organization[name]', 'Renamed'), field('organization[logo]', 'hello')]),
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { logo: ['must be a file (a multipart file part)'] } });
    expect((await server.get(`/organizations/${org.id}.json`, { token })).json().name).toBe('Acme');
  });

  it('a file in a text field is 422 on that field, nothing changed (it was dropped and the update answered 200)', async () => {
    const { token } = await server.createUser();
    const org = await organization(token);
    const collab = (await server.post(`/organizations/${org.id}/collabs.json`, { token })).json();
    const campaign = (
      await server.post(`/organizations/${org.id}/campaigns.json`, { token, body: { campaign: {} } })
    ).json();
    const headers = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
    const file = (name: string) => ({
      head: `Content-Disposition: form-data; name="${name}"; filename="name.txt"\r\nContent-Type: text/plain`,
      content: 'Renamed',
    });
    const cases: [url: string, form: Buffer, field: string][] = [
      // An endpoint with a file field (the logo) and one with none (a campaign's).
      [`/organizations/${org.id}.json`, multipart([file('organization[name]')]), 'name'],
      [`/organizations/${org.id}/collabs/${collab.id}.json`, multipart([file('collab[name]')]), 'name'],
      [
        `/organizations/${org.id}/campaigns/${campaign.id}.json`,
        multipart([field('campaign[name]', 'Renamed'), file('campaign[cpm_amount]')]),
        'cpm_amount',
      ],
    ];
    for (const [url, body, name] of cases) {
      const before = (await server.get(url, { token })).json();
      const res = await server.patch(url, { token, body, headers });
      expect([url, res.statusCode, res.json()]).toEqual([
        url,
        422,
        { errors: { [name]: ['must be text (a multipart field), not a file'] } },
      ]);
      expect((await server.get(url, { token })).json()).toEqual(before);
    }
  });

  it('Content-Type: application/json with no body at all is no body: a DELETE is 204', async () => {
    const { token } = await server.createUser();
    const org = await organization(token);
    const collab = (await server.post(`/organizations/${org.id}/collabs.json`, { token })).json();
    const headers = { 'content-type': 'application/json' };
    const created = await server.post(`/organizations/${org.id}/collabs.json`, { token, headers });
    expect(created.statusCode).toBe(201);
    const deleted = await server.delete(`/organizations/${org.id}/collabs/${collab.id}.json`, {
      token,
      headers,
    });
    expect(deleted.statusCode).toBe(204);
    const missing = await server.post('/me/access_tokens.json', { token, headers });
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toEqual({ errors: { access_token: ['is missing'] } });
  });
});
