/**
 * One address's share of the cap on connections (`MARKETPLACE_MAX_CONNECTIONS`, 6 here: an
 * address holds at most 3). The hostile-client trial, round seven: one address opening
 * connections and sending a header line now and then (each is closed by the receive timeout,
 * and reopened at once) held every connection the server would take, and every other client's
 * new connection was closed as soon as it was accepted. Connections of a trusted proxy
 * (`MARKETPLACE_TRUST_PROXY`) carry many clients and are not held to a share. Real sockets, from
 * two loopback addresses (Linux answers all of 127.0.0.0/8); each test waits for events (the
 * server's `connection` and `drop`, a socket's `close`, an answer), never for a time.
 */
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { proxyPeer } from '../src/plugins/request-intake.js';
import { useTestServer } from './harness.js';
import { answerOn } from './raw-http.js';

const MAX_CONNECTIONS = 6;
const HOG = '127.0.0.1';
const OTHER = '127.0.0.2';
const THIRD = '127.0.0.3';

describe('one address holds at most half of the connections', () => {
  const server = useTestServer({ maxConnections: MAX_CONNECTIONS }, {}, { keepData: true });
  const sockets = new Set<Socket>();
  let port: number;

  // The server's end of each connection, until it closes: each test starts with none open.
  const live = new Set<Socket>();
  let allClosed: (() => void) | undefined;

  beforeAll(async () => {
    await server.app.listen({ port: 0, host: '0.0.0.0' });
    port = (server.app.server.address() as AddressInfo).port;
    server.app.server.on('connection', (socket: Socket) => {
      live.add(socket);
      socket.once('close', () => {
        live.delete(socket);
        if (live.size === 0) allClosed?.();
      });
    });
  });
  afterEach(async () => {
    const closed = new Promise<void>((resolve) => {
      allClosed = resolve;
    });
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (live.size > 0) await closed;
  });

  /** `count` connections from `from`, each with a request head not finished; resolves once the server has seen each (and taken or closed it). */
  async function holdConnections(from: string, count: number): Promise<Socket[]> {
    let seen = 0;
    const taken = new Promise<void>((resolve) => {
      const onOne = () => {
        seen += 1;
        if (seen < count) return;
        server.app.server.off('connection', onOne);
        resolve();
      };
      server.app.server.on('connection', onOne);
    });
    const held = Array.from({ length: count }, () => {
      const socket = connect({ port, host: '127.0.0.1', localAddress: from });
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
      return socket;
    });
    await taken;
    return held;
  }

  /** A whole request on a new connection from `from`: its answer, or null if the connection was closed without one. */
  function request(from: string) {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    sockets.add(socket);
    socket.on('error', () => undefined);
    const answer = answerOn(socket);
    socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    return answer;
  }

  it('serves a new connection of another address while one address opens as many as the cap', async () => {
    await holdConnections(HOG, MAX_CONNECTIONS);
    const answer = await request(OTHER);
    expect(answer?.status).toBe(200);
  });

  it('serves a third address while two addresses hold every connection: one of the connections of the address holding the most is closed for it', async () => {
    const before = server.app.connectionCounts();
    const first = await holdConnections(HOG, MAX_CONNECTIONS / 2);
    const second = await holdConnections(OTHER, MAX_CONNECTIONS / 2);
    expect(server.app.connectionCounts().open).toBe(MAX_CONNECTIONS);
    const closed = Promise.race(
      [...first, ...second].map(
        (socket) => new Promise<Socket>((resolve) => socket.once('close', () => resolve(socket))),
      ),
    );
    const answer = await request(THIRD);
    expect(answer?.status).toBe(200);
    // The one closed for it is one of the first address's (both hold 3; the first found holding the most).
    expect(first).toContain(await closed);
    expect(server.app.connectionCounts()).toMatchObject({
      refused: before.refused,
      evicted: before.evicted + 1,
    });
    const metrics = await server.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toContain(`\nhttp_connections_evicted_total ${before.evicted + 1}\n`);
  });

  it('closes a new connection at the cap when no address holds more than one more than its own', async () => {
    const addresses = Array.from({ length: MAX_CONNECTIONS }, (_, i) => `127.0.1.${i + 1}`);
    for (const from of addresses) await holdConnections(from, 1);
    expect(server.app.connectionCounts().open).toBe(MAX_CONNECTIONS);
    expect(await request('127.0.1.100')).toBeNull();
  });
});

describe('a trusted proxy holds connections past an address share', () => {
  const server = useTestServer(
    { maxConnections: MAX_CONNECTIONS, trustProxy: [HOG] },
    {},
    { keepData: true },
  );
  const sockets = new Set<Socket>();
  let port: number;

  beforeAll(async () => {
    await server.app.listen({ port: 0, host: '0.0.0.0' });
    port = (server.app.server.address() as AddressInfo).port;
  });
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
  });

  it('answers a request on each of as many connections of the proxy as the cap', async () => {
    const held = Array.from({ length: MAX_CONNECTIONS }, () => {
      const socket = connect({ port, host: '127.0.0.1', localAddress: HOG });
      sockets.add(socket);
      socket.on('error', () => undefined);
      return socket;
    });
    // Each sends its request once all are open: none has been answered (and closed) before the last is taken.
    await Promise.all(held.map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
    const answers = held.map((socket) => {
      const answer = answerOn(socket);
      socket.write(`GET /health HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 192.0.2.${sockets.size}\r\n\r\n`);
      return answer;
    });
    expect((await Promise.all(answers)).map((answer) => answer?.status)).toEqual(
      Array(MAX_CONNECTIONS).fill(200),
    );
  });
});

describe('which peers are trusted proxies', () => {
  it('follows Fastify’s trustProxy rule: addresses, ranges, range names, an IPv4 client of a dual-stack socket', () => {
    const trusted = proxyPeer(['uniquelocal', '192.0.2.0/24', '2001:db8::7']);
    expect(['10.1.2.3', '::ffff:172.16.0.9', '192.0.2.200', '2001:db8::7', 'fd00::1'].map(trusted)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['127.0.0.1', '198.51.100.1', '2001:db8::8', '::ffff:8.8.8.8'].map(trusted)).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(proxyPeer(['loopback'])('::1')).toBe(true);
    expect(proxyPeer(2)('198.51.100.1')).toBe(true);
    expect(proxyPeer(undefined)('127.0.0.1')).toBe(false);
  });
});
