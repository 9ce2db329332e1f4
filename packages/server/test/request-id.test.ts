import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { useTestServer } from './harness.js';

const server = useTestServer();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('X-Request-Id', () => {
  it('is on every response, a fresh id per request when the client sent none', async () => {
    const user = await server.createUser();
    const answers = await Promise.all([
      server.get('/organizations.json', { token: user.token }),
      server.get('/organizations.json', { token: null }),
      server.get('/no/such/path.json', { token: user.token }),
      server.post('/organizations.json', { token: user.token, body: { organization: { name: '' } } }),
    ]);
    expect(answers.map((r) => r.statusCode)).toEqual([200, 401, 404, 422]);
    const ids = answers.map((r) => r.headers['x-request-id']);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("echoes the client's id when it is safe to log", async () => {
    for (const id of ['trace-0123', 'a', 'svc:checkout.v2_retry-3', 'x'.repeat(128)]) {
      const res = await server.get('/organizations.json', { token: null, headers: { 'x-request-id': id } });
      expect(res.headers['x-request-id']).toBe(id);
    }
  });

  it('replaces an id that is too long or holds other characters', async () => {
    for (const id of ['x'.repeat(129), 'two words', '<script>', 'a/b', 'é', '']) {
      const res = await server.get('/organizations.json', { token: null, headers: { 'x-request-id': id } });
      expect(res.statusCode).toBe(401);
      expect(res.headers['x-request-id'], id).toMatch(UUID);
    }
  });

  it("is the request's id in the server's log lines", async () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const app = await buildApp({ config: server.config, orm: server.orm, logger: { level: 'info', stream } });
    try {
      const res = await app.inject({ url: '/organizations.json', headers: { 'x-request-id': 'trace-42' } });
      expect(res.statusCode).toBe(401);
      expect(res.headers['x-request-id']).toBe('trace-42');
      const own = lines.filter((l) => l.reqId === 'trace-42').map((l) => l.msg);
      expect(own).toEqual(['incoming request', 'request completed']);
    } finally {
      await app.close();
    }
  });
});
