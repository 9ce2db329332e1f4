/**
 * HTTP/1.1 on a raw socket, for tests that need what a client library hides: a body sent chunked
 * or cut short, and the server's answer as it comes (or the connection closed without one).
 */
import type { Socket } from 'node:net';

const CHUNK = 64 * 1024;

/** An answer read off the socket: status, the head lower-cased, and the body (latin1). */
export interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

/**
 * Writes `body` after a request head: as it is (the head said its `Content-Length`), or chunked in
 * 64 KiB chunks, with the last chunk when `end` (without it the body never ends).
 */
export function writeBody(socket: Socket, body: Buffer, { chunked = false, end = true } = {}): void {
  if (!chunked) {
    socket.write(body);
    return;
  }
  for (let at = 0; at < body.length; at += CHUNK) {
    const chunk = body.subarray(at, at + CHUNK);
    socket.write(`${chunk.length.toString(16)}\r\n`);
    socket.write(chunk);
    socket.write('\r\n');
  }
  if (end) socket.write('0\r\n\r\n');
}

/** The server's answer on `socket` (its head and a `Content-Length` body), or null if the connection closes first. */
export function answerOn(socket: Socket): Promise<RawAnswer | null> {
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    socket.once('close', () => resolve(null));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const text = received.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) return;
      const headers = text.slice(0, end).toLowerCase();
      const bodyLength = Number(/content-length: (\d+)/.exec(headers)?.[1] ?? 0);
      if (received.length < end + 4 + bodyLength) return;
      resolve({
        status: Number(text.slice(9, 12)),
        headers,
        body: text.slice(end + 4, end + 4 + bodyLength),
      });
    });
  });
}

/** {@link answerOn}, an error if the connection closes without an answer. */
export async function requiredAnswerOn(socket: Socket): Promise<RawAnswer> {
  const answer = await answerOn(socket);
  if (answer === null) throw new Error('closed without an answer');
  return answer;
}
