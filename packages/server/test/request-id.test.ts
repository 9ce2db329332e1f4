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

  it("is the server's own id even when the client sends one: two requests with one client id get two ids", async () => {
    const answers = await Promise.all(
      [1, 2].map(() =>
        server.get('/organizations.json', { token: null, headers: { 'x-request-id': 'trace-0123' } }),
      ),
    );
    const ids = answers.map((r) => r.headers['x-request-id']);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(2);
  });

  it("keeps a client's safe id as clientRequestId beside the server's id on every log line", async () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const app = await buildApp({ config: server.config, orm: server.orm, logger: { level: 'info', stream } });
    try {
      const sent = (id: string) =>
        app.inject({ url: '/organizations.json', headers: { 'x-request-id': id } });
      const answers = [await sent('trace-42'), await sent('trace-42'), await sent('<script>')];
      expect(answers.map((r) => r.statusCode)).toEqual([401, 401, 401]);
      const ids = answers.map((r) => String(r.headers['x-request-id']));
      for (const id of ids) expect(id).toMatch(UUID);
      expect(new Set(ids).size).toBe(3);
      const linesOf = (id: string) =>
        lines.filter((l) => l.reqId === id).map((l) => [l.msg, l.clientRequestId]);
      expect(linesOf(ids[0] ?? '')).toEqual([['GET /organizations 401', 'trace-42']]);
      expect(linesOf(ids[1] ?? '')).toEqual([['GET /organizations 401', 'trace-42']]);
      // An id that is not safe to log is not logged at all.
      expect(linesOf(ids[2] ?? '')).toEqual([['GET /organizations 401', undefined]]);
      expect(JSON.stringify(lines)).not.toContain('<script>');
    } finally {
      await app.close();
    }
  });
});
