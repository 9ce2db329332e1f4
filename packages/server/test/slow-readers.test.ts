/**
 * Clients that ask for a large answer and never read it (real sockets, paused): the answer being
 * written to them holds no slot of the cap on requests in progress, and a socket that has not
 * taken the whole answer within the send timeout (`MARKETPLACE_SEND_TIMEOUT_MS`) is destroyed.
 */
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from './harness.js';
import { sample } from './metrics-text.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Far more than the kernel buffers of a loopback connection take (a few MiB). */
const BIG = Buffer.concat([PNG, Buffer.alloc(16 * 1024 * 1024, 1)]);
const CAP = 4;

interface StalledReader {
  socket: Socket;
  /** The status line and headers of the answer. */
  head: string;
  /** Bytes received so far (none while paused). */
  received: () => number;
  /** Resolves when the connection closes. */
  closed: Promise<void>;
}

/** GETs `path`, reads the first chunk of the answer (its head), then stops reading for good. */
function stalledRead(port: number, path: string, sockets: Set<Socket>): Promise<StalledReader> {
  const socket = connect(port, '127.0.0.1');
  sockets.add(socket);
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
  let received = 0;
  return new Promise((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > chunk.length) return;
      socket.pause();
      const text = chunk.toString('latin1');
      resolve({ socket, head: text.slice(0, text.indexOf('\r\n\r\n')), received: () => received, closed });
    });
  });
}

async function bigUpload(server: ReturnType<typeof useTestServer>): Promise<string> {
  return `/uploads/${await server.uploads.save({ data: BIG, filename: 'big.png', mimetype: 'image/png' })}`;
}

describe('clients that never read a large answer', () => {
  const server = useTestServer(
    {},
    { overload: { maxEventLoopDelay: 0, maxConcurrentRequests: CAP } },
    { keepData: true },
  );
  const sockets = new Set<Socket>();
  let port: number;
  let path: string;
  let token: string;
  let orgId: string;

  beforeAll(async () => {
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    port = (server.app.server.address() as AddressInfo).port;
    path = await bigUpload(server);
    ({ token } = await server.createUser());
    orgId = (
      await server.post('/organizations.json', { token, body: { organization: { name: 'Acme' } } })
    ).json().id;
  });
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
  });

  it('hold no slot: /health and an authenticated show answer 200 while as many as the cap stall', async () => {
    const stalled = await Promise.all(Array.from({ length: CAP }, () => stalledRead(port, path, sockets)));
    for (const reader of stalled) expect(reader.head).toMatch(/^HTTP\/1\.1 200 /);

    const metrics = await server.get('/metrics');
    expect(metrics.statusCode).toBe(200);
    // The scrape itself is the one request in progress; the stalled answers are being sent.
    expect(sample(metrics.body, 'http_requests_in_progress')).toBe(1);
    expect(sample(metrics.body, 'http_responses_sending')).toBe(CAP);

    const health = await fetch(`http://127.0.0.1:${port}/health`);
    await health.arrayBuffer();
    const show = await fetch(`http://127.0.0.1:${port}/organizations/${orgId}.json`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect([health.status, show.status]).toEqual([200, 200]);
    expect((await show.json()).id).toBe(orgId);
    // None of the stalled answers was taken whole: they are still open, still being sent.
    for (const reader of stalled) expect(reader.socket.destroyed).toBe(false);
  });
});

describe('a client that does not take its answer within the send timeout', () => {
  const server = useTestServer({ sendTimeoutMs: 200 }, {}, { keepData: true });
  const sockets = new Set<Socket>();
  let port: number;
  let path: string;

  beforeAll(async () => {
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    port = (server.app.server.address() as AddressInfo).port;
    path = await bigUpload(server);
  });
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
  });

  it('has its connection destroyed by the server before the answer is complete', async () => {
    const serverSide = new Promise<Socket>((resolve) => server.app.server.once('connection', resolve));
    const reader = await stalledRead(port, path, sockets);
    expect(reader.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(reader.head).toContain(`content-length: ${BIG.length}`);
    // The server gives up on the connection while its client still reads nothing...
    const connection = await serverSide;
    if (!connection.destroyed) await new Promise((resolve) => connection.once('close', resolve));
    // ...and the client, reading again, gets what was on the wire, then the end: not the whole answer.
    reader.socket.resume();
    await reader.closed;
    expect(reader.received()).toBeLessThan(BIG.length);

    const metrics = await server.get('/metrics');
    expect(sample(metrics.body, 'http_responses_sending')).toBe(0);
  });
});
