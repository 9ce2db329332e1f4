/**
 * CORS for browser integrations: off by default; with `MARKETPLACE_CORS_ORIGINS`, a listed origin
 * gets its preflight answered without a token and may read the pagination headers, the ETag and
 * the request id of every answer.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { useTestServer } from './harness.js';

const ORIGIN = 'https://app.example.com';

describe('with MARKETPLACE_CORS_ORIGINS set', () => {
  const server = useTestServer({ corsOrigins: [ORIGIN, 'http://localhost:5173'] });

  it('answers a preflight from a listed origin without a token (no 401)', async () => {
    const res = await server.request('OPTIONS', '/organizations/123/collabs.json', {
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'authorization, content-type, if-none-match, idempotency-key',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(String(res.headers['access-control-allow-methods'])).toContain('PATCH');
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase();
    // Idempotency-Key: the SDK sends one with every POST (a browser's create failed without it).
    for (const header of ['authorization', 'content-type', 'if-none-match', 'idempotency-key'])
      expect(allowed).toContain(header);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('lets a listed origin read the pagination headers, ETag and X-Request-Id', async () => {
    const { token } = await server.createUser();
    const created = await server.post('/organizations.json', {
      token,
      body: { organization: { name: 'Acme' } },
      headers: { origin: ORIGIN },
    });
    expect(created.statusCode).toBe(201);
    expect(created.headers['access-control-allow-origin']).toBe(ORIGIN);
    // A retried create tells the page it was answered from the first one.
    expect(String(created.headers['access-control-expose-headers']).toLowerCase()).toContain(
      'idempotent-replayed',
    );
    const list = await server.get('/organizations.json', { token, headers: { origin: ORIGIN } });
    const one = await server.get(`/organizations/${created.json().id}.json`, {
      token,
      headers: { origin: ORIGIN },
    });
    for (const res of [list, one]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(res.headers.vary).toMatch(/origin/i);
      const exposed = String(res.headers['access-control-expose-headers']).toLowerCase().split(/,\s*/);
      for (const header of [
        'current-page',
        'page-items',
        'total-count',
        'total-pages',
        'etag',
        'x-request-id',
      ])
        expect(exposed).toContain(header);
    }
    for (const header of ['total-count', 'total-pages', 'x-request-id'])
      expect(list.headers[header]).toBeDefined();
    expect(one.headers.etag).toBeDefined();
  });

  it('lets the page read a 401 too (the token is wrong, not the origin)', async () => {
    const res = await server.get('/organizations.json', { headers: { origin: ORIGIN } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
  });

  it('gives an origin not listed no CORS headers', async () => {
    const res = await server.request('OPTIONS', '/organizations.json', {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const { token } = await server.createUser();
    const get = await server.get('/organizations.json', {
      token,
      headers: { origin: 'https://evil.example' },
    });
    expect(get.statusCode).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('without MARKETPLACE_CORS_ORIGINS', () => {
  const server = useTestServer();

  it('sends no CORS headers and has no preflight route', async () => {
    const res = await server.request('OPTIONS', '/organizations.json', {
      headers: { origin: ORIGIN, 'access-control-request-method': 'GET' },
    });
    expect(res.statusCode).toBe(404);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('MARKETPLACE_CORS_ORIGINS', () => {
  it('is a comma-separated list of origins, or *', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(
      loadConfig({ MARKETPLACE_CORS_ORIGINS: 'https://a.example, http://localhost:5173/' }).corsOrigins,
    ).toEqual(['https://a.example', 'http://localhost:5173']);
    expect(loadConfig({ MARKETPLACE_CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
    for (const bad of ['a.example', 'https://a.example/app', 'ftp://a.example'])
      expect(() => loadConfig({ MARKETPLACE_CORS_ORIGINS: bad })).toThrow('MARKETPLACE_CORS_ORIGINS');
  });
});
