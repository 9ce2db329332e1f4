/**
 * The bodies of all requests in flight together stay within `MARKETPLACE_BODY_BUDGET_BYTES`
 * (real sockets): an upload that would take them past it is answered `503` and nothing of it is
 * stored, and the bytes of uploads abandoned half-way are given back when their connections close.
 */
import { randomBytes } from 'node:crypto';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PNG_UPLOAD_URL, useTestServer } from './harness.js';
import { sample } from './metrics-text.js';
import { startPageServer } from './page-server.js';
import { answerOn, requiredAnswerOn, writeBody } from './raw-http.js';

const KIB = 1024;
const BUDGET = 1024 * KIB;
const LOGO = 450 * KIB;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const server = useTestServer(
  { bodyBudgetBytes: BUDGET, maxUploadBytes: 512 * KIB, prefillAllowPrivate: true },
  {},
  { keepData: true },
);
const sockets = new Set<Socket>();
let port: number;
let token: string;

beforeAll(async () => {
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  port = (server.app.server.address() as AddressInfo).port;
  ({ token } = await server.createUser());
});
afterAll(() => {
  for (const socket of sockets) socket.destroy();
});

/** An organization create with a logo of `size` bytes, as a browser sends it. */
function logoForm(size: number): { type: string; body: Buffer } {
  const boundary = `----budget${randomBytes(8).toString('hex')}`;
  const part = (headers: string) => Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`);
  const body = Buffer.concat([
    part('content-disposition: form-data; name="organization[name]"'),
    Buffer.from('Acme\r\n'),
    part(
      'content-disposition: form-data; name="organization[logo]"; filename="logo.png"\r\ncontent-type: image/png',
    ),
    PNG,
    Buffer.alloc(size - PNG.length, 7),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { type: `multipart/form-data; boundary=${boundary}`, body };
}

/**
 * Sends the form on a connection of its own, all of it but its last `holdBack` bytes, with a
 * `Content-Length` or chunked. `answer` resolves with the server's answer, whenever it comes.
 */
function upload(options: { chunked?: boolean; holdBack?: number } = {}) {
  const form = logoForm(LOGO);
  const socket = connect(port, '127.0.0.1');
  sockets.add(socket);
  socket.on('error', () => undefined);
  const length = options.chunked ? 'transfer-encoding: chunked' : `content-length: ${form.body.length}`;
  socket.write(
    `POST /organizations.json HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\n` +
      `content-type: ${form.type}\r\n${length}\r\n\r\n`,
  );
  writeBody(socket, form.body.subarray(0, form.body.length - (options.holdBack ?? 0)), {
    chunked: options.chunked ?? false,
    end: !options.holdBack,
  });
  // Null if the connection closes first (a held-back upload closed by the suite's clean-up).
  const answer = answerOn(socket);
  return { socket, answer };
}

const metrics = async () => (await server.get('/metrics')).body;
const bytesInFlight = async () => sample(await metrics(), 'http_request_body_bytes_in_flight');

describe('uploads that together exceed the budget of bodies in memory', () => {
  it('refuse the one over budget with 503, store nothing of it, and give the bytes back on close', async () => {
    // Two uploads held open just before their end: their logos are in memory.
    const held = [upload({ holdBack: 64 }), upload({ holdBack: 64 })];
    await vi.waitFor(async () => expect(await bytesInFlight()).toBeGreaterThanOrEqual(2 * (LOGO - 8 * KIB)), {
      timeout: 20_000,
      interval: 20,
    });

    // A third, chunked (its size unknown until it arrives), and a fourth that announces its size.
    for (const refused of [upload({ chunked: true }), upload()]) {
      const answer = await refused.answer;
      expect(answer?.status).toBe(503);
      expect(answer?.headers).toContain('retry-after: 1');
      expect(JSON.parse(answer?.body ?? 'null')).toEqual({ error: 'Service temporarily unavailable' });
    }
    expect(await server.storedUploads()).toEqual([]);
    expect(await server.sql('select id from organizations')).toEqual([]);
    expect(sample(await metrics(), 'http_unavailable_responses_total', { cause: 'bodies' })).toBe(2);

    // The held uploads are abandoned: what they held is given back.
    for (const { socket } of held) socket.destroy();
    await vi.waitFor(async () => expect(await bytesInFlight()).toBe(0), { timeout: 20_000, interval: 20 });

    const form = new FormData();
    form.append('organization[name]', 'Honest');
    form.append('organization[logo]', new Blob([PNG, Buffer.alloc(LOGO - PNG.length, 7)]), 'logo.png');
    const honest = await server.post('/organizations.json', { token, form });
    expect(honest.statusCode).toBe(201);
    expect(honest.json().logo_url).toMatch(PNG_UPLOAD_URL);
    expect(await server.storedUploads()).toHaveLength(1);
    expect(await bytesInFlight()).toBe(0);
  });
});

/**
 * Sends a request head announcing `length` bytes of body (`Content-Length`) and the first bytes
 * of it; resolves with the answer's status, `Retry-After`, `Connection` and body.
 */
async function announce(path: string, type: string, length: string) {
  const socket = connect(port, '127.0.0.1');
  sockets.add(socket);
  socket.on('error', () => undefined);
  socket.write(
    `PATCH ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\n` +
      `content-type: ${type}\r\ncontent-length: ${length}\r\n\r\n{"organization":`,
  );
  const answer = await requiredAnswerOn(socket);
  socket.destroy();
  return answer;
}

describe('a body that can never fit in the budget', () => {
  let path: string;
  beforeAll(async () => {
    const created = await server.post('/organizations.json', {
      token,
      body: { organization: { name: 'Big' } },
    });
    path = `/organizations/${created.json().id}.json`;
  });

  it('is 413 (not a retryable 503) when its Content-Length says so, on a JSON or a multipart route', async () => {
    const form = 'multipart/form-data; boundary=x';
    // Past the budget (1 MiB) and the route's limit (JSON: 1 MiB; this form: 1.56 MiB), past the
    // budget only (a form of 1.2 MiB), and past anything (2^60).
    const cases: [string, string][] = [
      ['application/json', String(2 * BUDGET)],
      ['application/json', '1000000000000000000'],
      [form, String(BUDGET + 200 * KIB)],
      [form, String(128 * BUDGET + 1)],
      [form, '1000000000000000000'],
    ];
    for (const [type, length] of cases) {
      const answer = await announce(path, type, length);
      expect([type, length, answer.status]).toEqual([type, length, 413]);
      expect(answer.headers).not.toContain('retry-after');
      expect(JSON.parse(answer.body).error).toMatch(/too large/);
    }
    expect(await bytesInFlight()).toBe(0);
  });

  it('is 413 when, sent chunked, it alone grows past the budget', async () => {
    const socket = connect(port, '127.0.0.1');
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.write(
      `PATCH ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\n` +
        'content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n',
    );
    const body = Buffer.from(JSON.stringify({ organization: { name: 'x', pad: 'a'.repeat(2 * BUDGET) } }));
    writeBody(socket, body, { chunked: true });
    const status = await new Promise<number>((resolve, reject) => {
      socket.once('close', () => reject(new Error('closed without an answer')));
      socket.once('data', (chunk: Buffer) => resolve(Number(chunk.toString('latin1').slice(9, 12))));
    });
    expect(status).toBe(413);
  });
});

// A security review found the prefill outside the budget: 30 body-less creates of one user, each
// pulling a 1 MiB page and a 5 MiB image, took the server's memory up 360 MB.
describe('the downloads of a collab prefill (its page and image)', () => {
  it('count against the budget: with it full, the create is 503 and makes nothing; with room, it prefills', async () => {
    const page = await startPageServer();
    try {
      const org = await server.post('/organizations.json', {
        token,
        body: { organization: { name: 'Shop' } },
      });
      const create = () =>
        server.post(
          `/organizations/${org.json().id}/collabs.json?website=${encodeURIComponent(`${page.origin}/big-image`)}`,
          { token },
        );
      const held = [upload({ holdBack: 64 }), upload({ holdBack: 64 })];
      await vi.waitFor(
        async () => expect(await bytesInFlight()).toBeGreaterThanOrEqual(2 * (LOGO - 8 * KIB)),
        { timeout: 20_000, interval: 20 },
      );

      // The page fits in what is left; its image (read up to the 512 KiB upload limit) does not.
      const refused = await create();
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(page.hits.get('/huge.png')).toBe(1);
      expect(await server.sql('select id from collabs')).toEqual([]);

      for (const { socket } of held) socket.destroy();
      await vi.waitFor(async () => expect(await bytesInFlight()).toBe(0), { timeout: 20_000, interval: 20 });
      const created = await create();
      expect(created.statusCode).toBe(201);
      // Prefilled from the page; the image, larger than an upload may be, is no banner.
      expect(created.json()).toMatchObject({ name: 'Trail & Run Shoes', banner_image_url: null });
      // What the prefill held is given back with its answer.
      expect(await bytesInFlight()).toBe(0);

      // A page that alone would take more than the whole budget (its first MiB is read) is no
      // prefill, not a 503 that no retry could pass: the draft takes the defaults.
      const large = await server.post(
        `/organizations/${org.json().id}/collabs.json?website=${encodeURIComponent(`${page.origin}/large-page`)}`,
        { token },
      );
      expect(large.statusCode).toBe(201);
      expect(large.json()).toMatchObject({ name: 'Untitled collab', website: null });
      expect(await bytesInFlight()).toBe(0);
    } finally {
      await page.close();
    }
  });
});
