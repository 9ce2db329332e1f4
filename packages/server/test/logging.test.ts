/** What the server's log says about a request: never a secret from its URL or headers. */
import { once } from 'node:events';
import { type AddressInfo, connect } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { logFormatFor, loggerOptions, redactUrl } from '../src/http/logging.js';
import { useTestServer } from './harness.js';
import { requiredAnswerOn } from './raw-http.js';

const server = useTestServer();
const lines: string[] = [];
let app: Awaited<ReturnType<typeof buildApp>>;

beforeAll(async () => {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  app = await buildApp({
    config: server.config,
    orm: server.orm,
    logger: { ...loggerOptions('info'), stream },
    overload: { maxEventLoopDelay: 0 },
  });
});

afterAll(() => app.close());

describe('request log lines', () => {
  it('carry the URL without the values of access_token and token parameters', async () => {
    const { token } = await server.createUser();
    const res = await app.inject({
      url: '/organizations.json?page=1&access_token=mkt_secret1&TOKEN=mkt_secret2',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
    const log = lines.join('');
    expect(log).toContain('page=1&access_token=[REDACTED]&TOKEN=[REDACTED]');
    expect(log).not.toContain('mkt_secret');
    expect(log).not.toContain(token);
  });

  it('redact every parameter named like a secret, whatever its case', async () => {
    const names = ['key', 'api_key', 'APIKEY', 'apiKey', 'secret', 'client_secret', 'Password', 'passwd'];
    const more = ['my_token', 'id_token', 'X-Amz-Signature', 'sig', 'auth', 'authorization', 'session_id'];
    const query = [...names, ...more].map((name, i) => `${name}=S3CR3T${i}`).join('&');
    const res = await app.inject({ url: `/organizations.json?page=2&${query}&keyword=shoes` });
    expect(res.statusCode).toBe(401);
    const log = lines.join('');
    expect(log).not.toMatch(/S3CR3T/);
    expect(log).toContain(`?page=2&key=[REDACTED]&api_key=[REDACTED]&APIKEY=[REDACTED]`);
    expect(log).toContain('&X-Amz-Signature=[REDACTED]&');
    expect(log).toContain('&keyword=shoes');
  });

  it('redact secrets inside an encoded URL carried in a parameter (the collab website prefill)', async () => {
    const website = 'https://shop.example/p/1?api_key=PREFILLSECRET&ref=ad';
    const twice = encodeURIComponent(
      `https://a.example/?next=${encodeURIComponent('https://b.example/?token=DEEPSECRET')}`,
    );
    const res = await app.inject({
      method: 'POST',
      url: `/organizations/org1/collabs.json?website=${encodeURIComponent(website)}&back=${twice}`,
    });
    expect(res.statusCode).toBe(401);
    const log = lines.join('');
    expect(log).not.toContain('PREFILLSECRET');
    expect(log).not.toContain('DEEPSECRET');
    expect(log).toContain(
      `?website=${encodeURIComponent('https://shop.example/p/1?api_key=')}[REDACTED]${encodeURIComponent('&ref=ad')}`,
    );
  });

  it('leave other URLs as they are', () => {
    expect(redactUrl('/organizations?page=2')).toBe('/organizations?page=2');
    expect(redactUrl('/x?keyword=a&author=b&page=3&website=https%3A%2F%2Fa.example%2F')).toBe(
      '/x?keyword=a&author=b&page=3&website=https%3A%2F%2Fa.example%2F',
    );
    expect(redactUrl('/x?token=a#frag')).toBe('/x?token=[REDACTED]#frag');
    expect(redactUrl('/x?bad=%E0%A4%A&token')).toBe('/x?bad=%E0%A4%A&token');
  });
});

/** An app whose log lines (parsed) are kept, at the given level. */
async function appLoggingAt(level: string) {
  const records: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) records.push(JSON.parse(line));
      done();
    },
  });
  const logged = await buildApp({
    config: server.config,
    orm: server.orm,
    logger: { ...loggerOptions(level), stream },
    overload: { maxEventLoopDelay: 0 },
  });
  return { app: logged, records };
}

describe('one line per request', () => {
  it('at info: method, route template, status, time and request id, once per request', async () => {
    const { app: logged, records } = await appLoggingAt('info');
    try {
      const { token } = await server.createUser();
      const created = await logged.inject({
        method: 'POST',
        url: '/organizations.json',
        headers: { authorization: `Bearer ${token}` },
        payload: { organization: { name: 'Acme' } },
      });
      expect(created.statusCode).toBe(201);
      const id = created.json().id as string;
      const shown = await logged.inject({
        url: `/organizations/${id}.json`,
        headers: { authorization: `Bearer ${token}` },
      });
      const missing = await logged.inject({ url: '/no/such/path.json' });
      expect([shown.statusCode, missing.statusCode]).toEqual([200, 404]);

      const answers = [created, shown, missing];
      expect(records.map((r) => r.reqId)).toEqual(answers.map((r) => r.headers['x-request-id']));
      expect(records.map((r) => [r.level, r.msg, r.route, r.statusCode])).toEqual([
        [30, 'POST /organizations 201', '/organizations', 201],
        [30, 'GET /organizations/:id 200', '/organizations/:id', 200],
        [30, 'GET (unmatched) 404', '(unmatched)', 404],
      ]);
      for (const record of records) {
        expect(record.responseTime).toEqual(expect.any(Number));
        expect(record.req).toMatchObject({ method: expect.any(String), url: expect.any(String) });
      }
      // The URL as the client sent it, its `.json` suffix too (route matching ignores it).
      expect(records.map((r) => r.req)).toMatchObject([
        { method: 'POST', url: '/organizations.json' },
        { method: 'GET', url: `/organizations/${id}.json` },
        { method: 'GET', url: '/no/such/path.json' },
      ]);
    } finally {
      await logged.close();
    }
  });

  it("names the client's address and port when the connection closes before the answer's 'finish' (behind HAProxy, 2 lines of 11 had neither)", async () => {
    const { app: logged, records } = await appLoggingAt('info');
    try {
      // What HAProxy did: its end of the connection, read before the write of the answer was done.
      logged.addHook('onSend', async (request, reply) => {
        reply.raw.prependOnceListener('finish', () => request.raw.socket?.destroy());
      });
      await logged.listen({ port: 0, host: '127.0.0.1' });
      const { port } = logged.server.address() as AddressInfo;
      const { token } = await server.createUser();
      const ask = async () => {
        const socket = connect(port, '127.0.0.1');
        await once(socket, 'connect');
        const local = socket.localPort;
        socket.write(
          `GET /organizations.json HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`,
        );
        expect((await requiredAnswerOn(socket)).status).toBe(200);
        socket.destroy();
        return local;
      };
      // The first request of a token counts against its address (which reads it); the next do not.
      const ports = [await ask(), await ask()];
      expect(records.filter((r) => r.req !== undefined).map((r) => r.req)).toEqual(
        ports.map((remotePort) =>
          expect.objectContaining({ url: '/organizations.json', remoteAddress: '127.0.0.1', remotePort }),
        ),
      );
    } finally {
      await logged.close();
    }
  });

  it('none at info for /health, /ready and /metrics; one each at debug', async () => {
    const probes = ['/health', '/ready', '/metrics'];
    const quiet = await appLoggingAt('info');
    try {
      // (/ready may be 503 here: the harness's database is not made by the migrator.)
      for (const url of probes) expect((await quiet.app.inject({ url })).statusCode).toBeLessThan(600);
      expect(quiet.app.log.level).toBe('info');
      expect(quiet.records).toEqual([]);
    } finally {
      await quiet.app.close();
    }

    const debug = await appLoggingAt('debug');
    try {
      const statuses: number[] = [];
      for (const url of probes) statuses.push((await debug.app.inject({ url })).statusCode);
      const answered = debug.records.filter((r) => r.statusCode !== undefined);
      expect(answered.map((r) => [r.level, r.msg])).toEqual(
        probes.map((url, i) => [20, `GET ${url} ${statuses[i]}`]),
      );
      // At debug, each request's arrival is logged too.
      expect(debug.records.filter((r) => r.msg === 'incoming request')).toHaveLength(3);
    } finally {
      await debug.app.close();
    }
  });
});

describe('the log format', () => {
  it('is human-readable at a terminal and JSON lines otherwise, unless LOG_FORMAT says', () => {
    expect(logFormatFor('auto', { isTTY: true })).toBe('pretty');
    expect(logFormatFor('auto', { isTTY: false })).toBe('json');
    expect(logFormatFor('auto', {})).toBe('json');
    expect(logFormatFor('json', { isTTY: true })).toBe('json');
    expect(logFormatFor('pretty', {})).toBe('pretty');
  });

  it('pretty: lines go through pino-pretty; json: pino writes JSON lines itself', () => {
    expect(loggerOptions('info', 'pretty')).toHaveProperty('stream');
    expect(loggerOptions('info', 'json')).not.toHaveProperty('stream');
  });
});
