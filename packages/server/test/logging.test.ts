/** What the server's log says about a request: never a secret from its URL or headers. */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { logFormatFor, loggerOptions, redactUrl } from '../src/http/logging.js';
import { useTestServer } from './harness.js';

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
