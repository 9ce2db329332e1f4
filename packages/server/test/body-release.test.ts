/**
 * Every way a body read can end gives its bytes back to the budget of bodies in memory (real
 * sockets): a JSON body refused `413` while it still arrives (chunked, so its size is unknown
 * until then), a client that goes away half-way, a body that is not JSON (`400`), a body in a type
 * the endpoint does not read (`415`) and one that stops arriving (`408`). After each, once the
 * server has closed the connection, `http_request_body_bytes_in_flight` is back to 0 and a body
 * that fits is accepted.
 */
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, useTestServer } from './harness.js';
import { sample } from './metrics-text.js';
import { answerOn, writeBody } from './raw-http.js';

const KIB = 1024;
const MIB = 1024 * KIB;

/**
 * A server on a real socket, the sockets it accepts tracked so that a test can wait until the
 * server has closed every connection of its requests (the point after which no byte of theirs
 * can arrive any more).
 */
function useSocketServer(server: TestServer) {
  const open = new Set<Socket>();
  const clients = new Set<Socket>();
  let port = 0;
  beforeAll(async () => {
    server.app.server.on('connection', (socket: Socket) => {
      open.add(socket);
      socket.once('close', () => open.delete(socket));
    });
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    port = (server.app.server.address() as AddressInfo).port;
  });
  afterAll(() => {
    for (const socket of clients) socket.destroy();
  });

  /**
   * Sends a request head, then `body` (chunked, in 64 KiB chunks, or with its `Content-Length`),
   * all of it or its first `stopAt` bytes. `answer` resolves with the server's answer, or with
   * null if the connection closes without one.
   */
  function send(head: string, body: Buffer, options: { chunked?: boolean; stopAt?: number } = {}) {
    const socket = connect(port, '127.0.0.1');
    clients.add(socket);
    socket.on('error', () => undefined);
    const framing = options.chunked ? 'transfer-encoding: chunked' : `content-length: ${body.length}`;
    socket.write(`${head}\r\nhost: 127.0.0.1\r\n${framing}\r\n\r\n`);
    writeBody(socket, body.subarray(0, options.stopAt ?? body.length), {
      chunked: options.chunked ?? false,
      end: options.stopAt === undefined,
    });
    const answer = answerOn(socket);
    return { socket, answer };
  }

  /** Closes the clients' sockets and waits until the server has closed every connection. */
  async function allClosed(): Promise<void> {
    for (const socket of clients) socket.destroy();
    clients.clear();
    await Promise.all([...open].map((socket) => new Promise((resolve) => socket.once('close', resolve))));
    // The response's `close` listeners run on the events of that same close.
    await new Promise((resolve) => setImmediate(resolve));
  }

  return { send, allClosed };
}

const bytesInFlight = async (server: TestServer) =>
  sample((await server.get('/metrics')).body, 'http_request_body_bytes_in_flight');

/** JSON of `size` bytes: an organization update with an unknown field padding it out. */
const paddedJson = (size: number) => {
  const empty = JSON.stringify({ organization: { name: 'Padded', pad: '' } }).length;
  return Buffer.from(JSON.stringify({ organization: { name: 'Padded', pad: 'a'.repeat(size - empty) } }));
};

/** A user's token and the path of an organization of theirs, made before the suite's tests. */
function useOrganization(server: TestServer) {
  const made = { token: '', path: '' };
  beforeAll(async () => {
    made.token = (await server.createUser()).token;
    const created = await server.post('/organizations.json', {
      token: made.token,
      body: { organization: { name: 'Acme' } },
    });
    made.path = `/organizations/${created.json().id}.json`;
  });
  return made;
}

describe('bodies whose read ends early', () => {
  // Four times the JSON body limit (1 MiB): a body refused at the limit is a 413, not a 503.
  const server = useTestServer({ bodyBudgetBytes: 4 * MIB }, {}, { keepData: true });
  const wire = useSocketServer(server);
  const acme = useOrganization(server);
  const patch = () => `PATCH ${acme.path} HTTP/1.1\r\nauthorization: Bearer ${acme.token}`;
  const json = 'content-type: application/json';

  /** A body of 300 KiB (within the JSON limit) is accepted, and nothing is held after it. */
  async function honestBodyFits() {
    const res = await server.patch(acme.path, { token: acme.token, body: paddedJson(300 * KIB).toString() });
    expect(res.statusCode).toBe(200);
    expect(await bytesInFlight(server)).toBe(0);
  }

  it('gives back a chunked JSON body refused 413 while it arrives, every time', async () => {
    for (let i = 0; i < 6; i++) {
      const { answer } = wire.send(`${patch()}\r\n${json}`, paddedJson(10 * MIB), { chunked: true });
      const answered = await answer;
      expect(answered?.status).toBe(413);
      expect(JSON.parse(answered?.body ?? '')).toEqual({ error: 'The request body is too large' });
      await wire.allClosed();
      expect(await bytesInFlight(server)).toBe(0);
    }
    await honestBodyFits();
  });

  it('gives back a JSON body announced over the limit (413 on arrival)', async () => {
    for (let i = 0; i < 6; i++) {
      const { answer } = wire.send(`${patch()}\r\n${json}`, paddedJson(3 * MIB));
      expect((await answer)?.status).toBe(413);
      await wire.allClosed();
      expect(await bytesInFlight(server)).toBe(0);
    }
    await honestBodyFits();
  });

  it('gives back what a client sent before it went away', async () => {
    for (const chunked of [true, false]) {
      const { socket } = wire.send(`${patch()}\r\n${json}`, paddedJson(900 * KIB), {
        chunked,
        stopAt: 600 * KIB,
      });
      // Wait (a bounded number of scrapes) until the server holds part of the body.
      for (let i = 0; i < 1_000 && ((await bytesInFlight(server)) ?? 0) === 0; i++)
        await new Promise((resolve) => setImmediate(resolve));
      expect(await bytesInFlight(server)).toBeGreaterThan(0);
      socket.destroy();
      await wire.allClosed();
      expect(await bytesInFlight(server)).toBe(0);
    }
    await honestBodyFits();
  });

  it('gives back a body that is not JSON (400)', async () => {
    const notJson = Buffer.concat([paddedJson(900 * KIB), Buffer.from('}')]);
    for (const chunked of [true, false]) {
      const { answer } = wire.send(`${patch()}\r\n${json}`, notJson, { chunked });
      expect((await answer)?.status).toBe(400);
      await wire.allClosed();
      expect(await bytesInFlight(server)).toBe(0);
    }
    await honestBodyFits();
  });

  it('gives back a body in a type the endpoint does not read (415)', async () => {
    for (const chunked of [true, false]) {
      for (const size of [900 * KIB, 3 * MIB]) {
        const { answer } = wire.send(`${patch()}\r\ncontent-type: text/plain`, paddedJson(size), { chunked });
        expect((await answer)?.status).toBe(415);
        await wire.allClosed();
        expect(await bytesInFlight(server)).toBe(0);
      }
    }
    await honestBodyFits();
  });
});

describe('a body that stops arriving', () => {
  const server = useTestServer({ receiveTimeoutMs: 500 }, {}, { keepData: true });
  const wire = useSocketServer(server);
  const acme = useOrganization(server);

  it('is answered 408 and its bytes are given back', async () => {
    for (const chunked of [true, false]) {
      const { answer } = wire.send(
        `PATCH ${acme.path} HTTP/1.1\r\nauthorization: Bearer ${acme.token}\r\ncontent-type: application/json`,
        paddedJson(900 * KIB),
        { chunked, stopAt: 600 * KIB },
      );
      expect((await answer)?.status).toBe(408);
      await wire.allClosed();
      expect(await bytesInFlight(server)).toBe(0);
    }
  });
});
