import { describe, expect, it } from 'vitest';
import { etagOf, matchesIfNoneMatch } from '../src/http/etag.js';
import { useTestServer } from './harness.js';

const server = useTestServer();

async function organization() {
  const { token } = await server.createUser();
  const org = (
    await server.post('/organizations.json', { token, body: { organization: { name: 'Acme' } } })
  ).json();
  const url = `/organizations/${org.id}.json`;
  const res = await server.get(url, { token });
  return { token, url, etag: res.headers.etag as string };
}

describe('conditional GET', () => {
  it('tags every show with a weak ETag of its body', async () => {
    const { token, url, etag } = await organization();
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    const res = await server.get(url, { token });
    expect(res.headers.etag).toBe(etagOf(res.body));
  });

  it.each([
    ['the tag itself', (etag: string) => etag],
    ['the tag without W/ (weak comparison)', (etag: string) => etag.slice(2)],
    ['a list holding the tag', (etag: string) => `W/"other", ${etag}`],
    ['*', () => '*'],
  ])('answers 304 with no body and the ETag for %s', async (_label, header) => {
    const { token, url, etag } = await organization();
    const res = await server.get(url, { token, headers: { 'if-none-match': header(etag) } });
    expect(res.statusCode).toBe(304);
    expect(res.body).toBe('');
    expect(res.headers.etag).toBe(etag);
  });

  it.each([
    ['the tag itself', (etag: string) => etag],
    ['a list holding the tag', (etag: string) => `W/"other", ${etag}`],
    ['*', () => '*'],
  ])(
    'answers a HEAD with 304 for %s too (it was a 500), and a HEAD without one with 200',
    async (_l, header) => {
      const { token, url, etag } = await organization();
      const head = await server.request('HEAD', url, { token, headers: { 'if-none-match': header(etag) } });
      expect(head.statusCode).toBe(304);
      expect(head.body).toBe('');
      expect(head.headers.etag).toBe(etag);
      const plain = await server.request('HEAD', url, { token });
      expect(plain.statusCode).toBe(200);
      expect(plain.body).toBe('');
      expect(plain.headers.etag).toBe(etag);
      expect(plain.headers['content-length']).toBe(
        String(Buffer.byteLength((await server.get(url, { token })).body)),
      );
      for (const other of ['/me/notification_settings.json']) {
        const res = await server.request('HEAD', other, { token, headers: { 'if-none-match': '*' } });
        expect(res.statusCode).toBe(304);
      }
    },
  );

  it('answers 200 with the body for a tag that does not match', async () => {
    const { token, url } = await organization();
    const res = await server.get(url, { token, headers: { 'if-none-match': 'W/"stale"' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().name).toBe('Acme');
  });

  it('checks the token and tenancy before a 304', async () => {
    const { url, etag } = await organization();
    const stranger = await server.createUser();
    expect((await server.get(url, { headers: { 'if-none-match': '*' } })).statusCode).toBe(401);
    const hidden = await server.get(url, { token: stranger.token, headers: { 'if-none-match': etag } });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toEqual({ error: 'Not found' });
  });

  it('sets no ETag on collections', async () => {
    const { token } = await organization();
    expect((await server.get('/organizations.json', { token })).headers.etag).toBeUndefined();
  });

  it('compares weakly and takes lists', () => {
    expect(matchesIfNoneMatch('"a", W/"b"', 'W/"b"')).toBe(true);
    expect(matchesIfNoneMatch('"b"', 'W/"b"')).toBe(true);
    expect(matchesIfNoneMatch('W/"c"', 'W/"b"')).toBe(false);
    expect(matchesIfNoneMatch(undefined, 'W/"b"')).toBe(false);
  });
});
