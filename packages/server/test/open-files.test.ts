/**
 * A process out of file descriptors keeps serving. Every connection takes one, and a process at
 * its open-file limit cannot open anything more (a file, a socket, `/proc/self/stat`): before,
 * the overload protection's periodic sample called `process.memoryUsage()`, which reads
 * `/proc/self/stat`, and its `EMFILE` thrown from a timer shut the whole server down ("shutting
 * down after an error", exit 1) within a second of 1 030 connections under `ulimit -n 1024`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Fastify from 'fastify';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { isDatabaseUnavailable, registerOverloadProtection } from '../src/plugins/availability.js';
import { sample } from './metrics-text.js';

/** What Node throws when the process has no file descriptor left. */
function tooManyOpenFiles(): never {
  throw Object.assign(new Error('EMFILE: too many open files, uv_resident_set_memory'), {
    code: 'EMFILE',
    errno: -24,
    syscall: 'uv_resident_set_memory',
  });
}

describe('the overload protection with no file descriptor left', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('samples nothing that needs one: its timers throw nothing, and requests are still answered', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'] });
    const app = Fastify({ logger: false });
    await registerOverloadProtection(app, { maxEventLoopDelay: 1_000, maxConcurrentRequests: 4 });
    app.get('/', async () => ({ ok: true }));
    await app.ready();
    // From now on, reading the process's memory fails as it does at the open-file limit.
    vi.spyOn(process, 'memoryUsage').mockImplementation(tooManyOpenFiles);
    vi.spyOn(process.memoryUsage, 'rss').mockImplementation(tooManyOpenFiles);

    // Ten sample intervals: a sampler that reads the memory throws out of its timer here.
    expect(() => vi.advanceTimersByTime(10_000)).not.toThrow();
    vi.useRealTimers();
    const answer = await app.inject('/');
    expect(answer.statusCode).toBe(200);
    await app.close();
  });
});

describe('a database connection that cannot be opened for want of a file descriptor', () => {
  it('is the database unavailable for now (503 with Retry-After), not a bug (500)', () => {
    const connect = Object.assign(new Error('connect EMFILE 127.0.0.1:5432 - Local (undefined:undefined)'), {
      code: 'EMFILE',
    });
    expect(isDatabaseUnavailable(new Error('the pool failed', { cause: connect }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('file table overflow'), { code: 'ENFILE' }))).toBe(
      true,
    );
  });
});

/** The open-file limit of the server's process in the test below (bash's `ulimit -n`). */
const OPEN_FILES = 256;
/** Connections opened at once, more than the process can hold. */
const FLOOD = 300;
const HELPERS_KEY = 'open-files-test-helpers-key-0123456789';
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(64, 7),
]);

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The request went over a connection an earlier request had used (the agent's keep-alive). */
  reused: boolean;
}

/** One request through `agent`, its whole answer read. */
function send(
  agent: Agent,
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: Buffer,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          reused: req.reusedSocket,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The server's CLI from its source, in a process of its own whose open-file limit is `limit`. */
function serveWithOpenFileLimit(limit: number, env: Record<string, string>): ChildProcess {
  const node = [process.execPath, '--conditions=@app/source', '--import', 'tsx', 'src/cli.ts', 'serve'];
  return spawn('bash', ['-c', `ulimit -n ${limit} && exec "$@"`, 'bash', ...node], {
    cwd: new URL('..', import.meta.url).pathname,
    env: { ...process.env, LOG_LEVEL: 'info', LOG_FORMAT: 'json', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe.skipIf(process.platform !== 'linux')(
  `a server under ulimit -n ${OPEN_FILES} and ${FLOOD} connections at once`,
  { timeout: 120_000 },
  () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mkt-open-files-'));
    const flood = new Set<Socket>();
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
    let child: ChildProcess | undefined;
    afterAll(() => {
      for (const socket of flood) socket.destroy();
      keepAlive.destroy();
      if (child?.exitCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('refuses the connections it cannot hold and keeps serving the others: files, a new connection after, no exit', async () => {
      const server = serveWithOpenFileLimit(OPEN_FILES, {
        DATABASE_URL: 'pglite://memory',
        MARKETPLACE_DATA_DIR: dataDir,
        MARKETPLACE_TEST_HELPERS_KEY: HELPERS_KEY,
      });
      child = server;
      let output = '';
      server.stderr?.on('data', (chunk) => (output += chunk));
      const exited = new Promise<never>((_resolve, reject) =>
        server.once('exit', (code, signal) =>
          reject(new Error(`the server exited (${code ?? signal}):\n${output.slice(-3_000)}`)),
        ),
      );
      exited.catch(() => undefined);
      /** `step`, unless the server exits first. */
      const whileServing = <T>(step: Promise<T>) => Promise.race([step, exited]);
      const port = await whileServing(
        new Promise<number>((resolve) => {
          createInterface({ input: server.stdout as NodeJS.ReadableStream }).on('line', (line) => {
            output += `${line}\n`;
            const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
            if (match) resolve(Number(match[1]));
          });
        }),
      );

      // A client with one keep-alive connection, opened before the flood.
      const created = await whileServing(
        send(
          keepAlive,
          port,
          'POST',
          '/test_helpers/users.json',
          { authorization: `Bearer ${HELPERS_KEY}`, 'content-type': 'application/json' },
          Buffer.from(JSON.stringify({ user: { name: 'Ada', email: 'ada@example.com' } })),
        ),
      );
      expect(created.status).toBe(201);
      const token = JSON.parse(created.body.toString()).access_token.token as string;

      // More connections than the process has file descriptors, held open, from three addresses
      // (one address holds at most half of the cap: connection-share.test.ts).
      let refused = 0;
      let firstRefusal: () => void = () => undefined;
      const someRefused = new Promise<void>((resolve) => {
        firstRefusal = resolve;
      });
      await whileServing(
        Promise.all(
          Array.from(
            { length: FLOOD },
            (_, i) =>
              new Promise<void>((resolve) => {
                const socket = connect({ port, host: '127.0.0.1', localAddress: `127.0.0.${1 + (i % 3)}` });
                flood.add(socket);
                socket.on('error', () => undefined);
                socket.once('connect', () => resolve());
                socket.once('close', () => {
                  refused += 1;
                  firstRefusal();
                  resolve();
                });
              }),
          ),
        ),
      );
      // One round trip: the server has accepted (or refused) every connection of the flood by now.
      const health = await whileServing(send(keepAlive, port, 'GET', '/health'));
      expect({ status: health.status, reused: health.reused }).toEqual({ status: 200, reused: true });
      await whileServing(someRefused);
      expect(refused).toBeGreaterThan(0);

      // Work that opens files, on the connection it had: a logo written, then read back.
      const form = new FormData();
      form.append('organization[name]', 'Acme');
      form.append('organization[logo]', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'logo.png');
      const encoded = new Request('http://localhost/', { method: 'POST', body: form });
      const org = await whileServing(
        send(
          keepAlive,
          port,
          'POST',
          '/organizations.json',
          { authorization: `Bearer ${token}`, 'content-type': encoded.headers.get('content-type') as string },
          Buffer.from(await encoded.arrayBuffer()),
        ),
      );
      expect({ status: org.status, reused: org.reused }).toEqual({ status: 201, reused: true });
      const logo = await whileServing(
        send(keepAlive, port, 'GET', new URL(JSON.parse(org.body.toString()).logo_url).pathname),
      );
      expect({ status: logo.status, reused: logo.reused, same: logo.body.equals(PNG) }).toEqual({
        status: 200,
        reused: true,
        same: true,
      });

      // The refused ones were the cap's (Node's `maxConnections`), not the kernel's or libuv's.
      const metrics = (await whileServing(send(keepAlive, port, 'GET', '/metrics'))).body.toString();
      expect(sample(metrics, 'http_connections_refused_total')).toBeGreaterThan(0);
      expect(sample(metrics, 'http_connections_open')).toBeLessThan(OPEN_FILES / 2);

      // The flood leaves; a new client connects and is served (its connection may be refused
      // until the server has seen the flood's connections close: it connects again, as a client
      // would).
      for (const socket of flood) socket.destroy();
      let fresh: Answer | undefined;
      while (fresh === undefined) {
        const agent = new Agent({ keepAlive: false });
        fresh = await whileServing(send(agent, port, 'GET', '/health').catch(() => undefined));
        agent.destroy();
      }
      expect(fresh.status).toBe(200);

      // It did not exit, and it still shuts down cleanly.
      expect(server.exitCode).toBeNull();
      const code = new Promise<number | null>((resolve) =>
        server.once('exit', (exitCode) => resolve(exitCode)),
      );
      server.kill('SIGTERM');
      expect(await code).toBe(0);
    });
  },
);
