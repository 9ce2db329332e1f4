/**
 * The stdio transport's back-pressure, in-process (the bin's answers over stdio are tested end to
 * end in hostile.test.ts). A host that keeps writing lines the transport refuses, and reads none of
 * its answers, must not grow the server's memory: while stdout holds answers it has not taken,
 * no more of stdin is read.
 */
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { StdioTransport } from '../src/stdio.js';

/** A stdout whose reader takes nothing until `release()`: the writes stay buffered in it. */
function stalledStdout() {
  const held: Array<() => void> = [];
  let released = false;
  const stdout = new Writable({
    highWaterMark: 1024,
    write(_chunk: Buffer, _encoding, done) {
      if (released) done();
      else held.push(done);
    },
  });
  return {
    stdout,
    release() {
      released = true;
      for (const done of held.splice(0)) done();
    },
  };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('StdioTransport', () => {
  test('stops reading stdin while stdout holds answers its reader has not taken, and goes on once it drains', async () => {
    const stdin = new PassThrough();
    const out = stalledStdout();
    const transport = new StdioTransport({ stdin, stdout: out.stdout });
    let refused = 0;
    transport.onerror = () => {
      refused++;
    };
    await transport.start();

    // 50 lines that are no JSON: 50 answers of about 100 bytes, more than stdout's 1 KiB buffer.
    stdin.write('x\n'.repeat(50));
    await nextTurn();
    expect(refused).toBe(50);
    expect(stdin.isPaused()).toBe(true);
    stdin.write('y\n'.repeat(50));
    await nextTurn();
    // The second chunk waits in stdin, unread.
    expect(refused).toBe(50);
    expect(out.stdout.writableLength).toBeGreaterThan(1024);

    // The reader takes what was written; stdout drains, and the rest of stdin is read.
    out.release();
    await nextTurn();
    await nextTurn();
    expect(refused).toBe(100);
    expect(stdin.isPaused()).toBe(false);
    await transport.close();
  });

  test('answers are written while stdout takes them, stdin never paused', async () => {
    const stdin = new PassThrough();
    const answers: string[] = [];
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, done) {
        answers.push(chunk.toString());
        done();
      },
    });
    const transport = new StdioTransport({ stdin, stdout });
    transport.onerror = () => undefined;
    await transport.start();
    stdin.write('x\n');
    await nextTurn();
    expect(stdin.isPaused()).toBe(false);
    expect(JSON.parse(answers[0] ?? '')).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    await transport.close();
  });
});
