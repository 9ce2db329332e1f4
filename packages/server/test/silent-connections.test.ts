/**
 * Connections that never send a byte (real sockets). The hostile-client trial reported them held
 * for good (200 s and more); they are not: Node's parser starts a connection's headers and
 * request timeouts when the connection is set up, not at its first byte, so one that stays silent
 * is answered `408` and closed once the receive timeout (`MARKETPLACE_RECEIVE_TIMEOUT_MS`, 200 ms
 * here) has passed. The trial's client did not read its sockets, so it never saw the `408` nor the
 * close (its sockets sat in CLOSE-WAIT while the server's side was gone). These tests read. A
 * connection that has sent a request is not cut by that bound: neither a slow reader of a large
 * answer nor an idle keep-alive connection, which keeps its own timeout. Each test waits for
 * events (a socket's `close`, an answer), never for a time.
 */
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from './harness.js';

const RECEIVE_TIMEOUT_MS = 200;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Far more than the kernel buffers of a loopback connection take. */
const BIG = Buffer.concat([PNG, Buffer.alloc(16 * 1024 * 1024, 1)]);

describe('connections that send nothing', () => {
  const server = useTestServer({ receiveTimeoutMs: RECEIVE_TIMEOUT_MS }, {}, { keepData: true });
  const sockets = new Set<Socket>();
  let port: number;

  /** A connection to the server; `closed` resolves when it closes (by either side). */
  function open(): { socket: Socket; closed: Promise<void> } {
    const socket = connect(port, '127.0.0.1');
    sockets.add(socket);
    socket.on('error', () => undefined);
    return { socket, closed: new Promise((resolve) => socket.once('close', () => resolve())) };
  }

  /**
   * A connection that sends nothing and reads what it is sent (a socket never read never sees
   * its end). `closed` resolves with what it read.
   */
  function openSilent(): { socket: Socket; closed: Promise<Buffer> } {
    const { socket, closed } = open();
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    return { socket, closed: closed.then(() => Buffer.concat(chunks)) };
  }

  /** Bytes read from `socket` until `done(bytes)` says the answer is whole. */
  function readUntil(socket: Socket, done: (received: Buffer) => boolean): Promise<Buffer> {
    let received = Buffer.alloc(0);
    return new Promise((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        if (!done(received)) return;
        socket.off('data', onData);
        resolve(received);
      };
      socket.on('data', onData);
      socket.once('close', () => reject(new Error(`closed after ${received.length} bytes`)));
    });
  }

  const headOf = (bytes: Buffer) => bytes.subarray(0, bytes.indexOf('\r\n\r\n')).toString('latin1');
  /** Whether `bytes` hold a whole answer with a `Content-Length`. */
  const whole = (bytes: Buffer) => {
    const end = bytes.indexOf('\r\n\r\n');
    if (end < 0) return false;
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(headOf(bytes))?.[1]);
    return bytes.length >= end + 4 + length;
  };

  beforeAll(async () => {
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    port = (server.app.server.address() as AddressInfo).port;
  });
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
  });

  it('answers a connection that has sent no byte 408 once the receive timeout has passed, and closes it', async () => {
    const silent = openSilent();
    const answer = await silent.closed;
    expect(silent.socket.bytesWritten).toBe(0);
    expect(headOf(answer)).toMatch(/^HTTP\/1\.1 408 /);
    expect(headOf(answer)).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(answer.subarray(answer.indexOf('\r\n\r\n') + 4).toString())).toEqual({
      error: 'The request was not received in time',
    });
  });

  it('leaves a keep-alive connection that has sent a request to its own timeout', async () => {
    const client = open();
    const ask = () => {
      const answer = readUntil(client.socket, whole);
      client.socket.write('GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
      return answer;
    };
    expect(headOf(await ask())).toMatch(/^HTTP\/1\.1 200 /);
    // A silent connection opened after it is closed: its time has passed for the first one too.
    expect(headOf(await openSilent().closed)).toMatch(/^HTTP\/1\.1 408 /);
    expect(client.socket.destroyed).toBe(false);
    expect(headOf(await ask())).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('does not cut a slow reader of a large answer', async () => {
    const path = `/uploads/${await server.uploads.save({ data: BIG, filename: 'big.png', mimetype: 'image/png' })}`;
    const reader = open();
    // The head of the answer, then no reading for a while.
    let received = 0;
    const head = new Promise<Buffer>((resolve) => {
      reader.socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received === chunk.length) {
          reader.socket.pause();
          resolve(chunk);
        }
      });
    });
    reader.socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n`);
    const first = await head;
    expect(headOf(first)).toMatch(/^HTTP\/1\.1 200 /);
    // A silent connection opened after it is closed: the reader's time has passed too.
    expect(headOf(await openSilent().closed)).toMatch(/^HTTP\/1\.1 408 /);
    // The reader reads on, and gets the whole answer.
    const ended = new Promise<void>((resolve) => reader.socket.once('end', () => resolve()));
    reader.socket.resume();
    await ended;
    expect(received).toBe(first.indexOf('\r\n\r\n') + 4 + BIG.length);
  });
});
