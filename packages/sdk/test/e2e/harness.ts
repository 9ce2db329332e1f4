/**
 * End-to-end harness: the test kit we ship (`@app/testing`: the real reference server, in-process
 * on a loopback port over an in-memory PGlite), and SDK clients that talk to it over real HTTP.
 * Every exchange is recorded with the endpoint of the table it belongs to; in a contract run
 * (`pnpm test:contract`) the clients talk to a Prism proxy in front of the kit's server.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { type Endpoint, type NamedEndpoint, publicEndpoints, testHelperEndpointList } from '@app/schemas';
import { freePort, startTestServer, type TestServer } from '@app/testing';
import { afterAll, beforeAll } from 'vitest';
import type { ClientOptions, Fetch, Marketplace, User } from '../../src/index.js';

export const HELPERS_KEY = 'e2e-test-helpers-key-0123456789abcdef';

/** Every endpoint of the table: the public API and the test helpers. */
export const table: readonly NamedEndpoint[] = [...publicEndpoints, ...testHelperEndpointList];

const pattern = (e: Endpoint) => new RegExp(`^${e.path.replace(/:[a-z_]+/g, '[^/]+')}\\.json$`);

/** One HTTP exchange as the SDK's `fetch` saw it. */
export interface Exchange {
  /** `group.action` of the table, or undefined (e.g. an `/uploads/…` file). */
  endpoint: string | undefined;
  method: string;
  path: string;
  status: number;
  ifNoneMatch: string | null;
  retryAfter: string | null;
}

/** The Prism proxy in front of this file's server, in a `pnpm test:contract` run. */
let prismUrl: string | undefined;

/**
 * Sends a request through Prism, except multipart uploads, `HEAD`, transitions and bodies that
 * are not JSON (Prism's proxy mangles multipart bodies, answers `HEAD` with a 500 of its own,
 * follows a 303, and answers a malformed body itself): those go to the server directly.
 */
function viaPrism(request: Request): Promise<Response> | undefined {
  if (!prismUrl || request.method === 'HEAD') return undefined;
  if (request.headers.get('content-type')?.startsWith('multipart/')) return undefined;
  const url = new URL(request.url);
  // Prism follows a 303 itself and would judge the page it was sent to: transitions go direct.
  if (table.some((e) => e.status === 303 && e.method === request.method && pattern(e).test(url.pathname)))
    return undefined;
  url.host = new URL(prismUrl).host;
  return (async () => {
    const body = request.body ? await request.clone().arrayBuffer() : undefined;
    // Prism answers a body that is not JSON itself, without asking the server: that goes direct.
    if (body && request.headers.get('content-type')?.includes('json')) {
      try {
        JSON.parse(new TextDecoder().decode(body));
      } catch {
        return fetch(request);
      }
    }
    return fetch(url, { method: request.method, headers: request.headers, body, redirect: 'manual' });
  })();
}

/** A `fetch` that records each exchange (each attempt, retries included) into `traffic`. */
export function recordingFetch(traffic: Exchange[]): Fetch {
  return async (input, init) => {
    // ky passes a Request (and only non-standard options in `init`).
    const request = input instanceof Request ? input : new Request(input, init);
    const method = request.method;
    const path = new URL(request.url).pathname;
    const response = await (viaPrism(request) ?? fetch(input, init));
    traffic.push({
      endpoint: table.find((e) => e.method === method && pattern(e).test(path))?.name,
      method,
      path,
      status: response.status,
      ifNoneMatch: request.headers.get('if-none-match'),
      retryAfter: response.headers.get('retry-after'),
    });
    return response;
  };
}

export interface TestUser {
  user: User;
  token: string;
  /** A client with this user's token (recording into the server's `traffic`). */
  client: Marketplace;
}

export interface E2EServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Every exchange of the clients made by {@link E2EServer.client}, in order. */
  readonly traffic: Exchange[];
  /** A client of the server that retries without waiting and records its traffic. */
  client(token: string, options?: Partial<ClientOptions>): Marketplace;
  /** A client that only holds the test-helpers key. */
  readonly admin: Marketplace;
  /** A user with a write token, made through the test helpers. */
  newUser(name: string, options?: Partial<ClientOptions>): Promise<TestUser>;
  /** Runs SQL on the server's database (to check what was stored). */
  sql<T = Record<string, unknown>>(query: string, params?: unknown[]): Promise<T[]>;
}

export interface ServerOptions {
  /** Extra settings, as environment variables (e.g. `MARKETPLACE_CHAOS_503_RATE`). */
  env?: Record<string, string>;
  /** Random source of the chaos 503s. */
  random?: () => number;
}

/**
 * With `MARKETPLACE_E2E_PRISM_LOG_DIR` set (`pnpm test:contract`), the clients talk to a Prism
 * validation proxy in front of the server, loaded with the server's own `/openapi.json`; Prism's
 * log (one per test file, in that directory) lists each request and each response that breaks
 * the document.
 */
async function startPrism(upstream: string, logDir: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const doc = join(logDir, `openapi-${port}.json`);
  // MARKETPLACE_E2E_PRISM_DOCUMENT: judge by another document (e.g. an older one, for comparison).
  const other = process.env.MARKETPLACE_E2E_PRISM_DOCUMENT;
  writeFileSync(doc, other ? readFileSync(other) : await (await fetch(`${upstream}/openapi.json`)).text());
  // `prism` is node_modules/.bin's shell wrapper: Prism runs as its child. Its own process group
  // lets `stopPrism` end both (killing the wrapper alone left Prism running after every run).
  const child = spawn('prism', ['proxy', doc, upstream, '--port', String(port), '--errors', 'false'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const log = createWriteStream(join(logDir, `prism-${port}.log`));
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`prism exited (${code})`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Prism is listening')) resolve();
    });
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

/** Ends Prism and its wrapper (the whole process group) and waits for the wrapper to exit. */
async function stopPrism(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null) return;
  const exited = once(child, 'exit');
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return; // already gone
  }
  await exited;
}

/**
 * Starts the kit's server for the calling test file (`beforeAll`, closed in `afterAll`), with the
 * test helpers on under {@link HELPERS_KEY} and the collab prefill refusing private addresses.
 */
export function useServer(options: ServerOptions = {}): E2EServer {
  const traffic: Exchange[] = [];
  let kit: TestServer | undefined;
  let prism: ChildProcess | undefined;
  let admin: Marketplace | undefined;
  const started = () => {
    if (!kit) throw new Error('the server starts in beforeAll');
    return kit;
  };

  beforeAll(async () => {
    kit = await startTestServer({
      helpersKey: HELPERS_KEY,
      env: { MARKETPLACE_PREFILL_ALLOW_PRIVATE: '0', ...options.env },
      ...(options.random && { random: options.random }),
    });
    const prismLogDir = process.env.MARKETPLACE_E2E_PRISM_LOG_DIR;
    if (prismLogDir) ({ url: prismUrl, child: prism } = await startPrism(kit.url, prismLogDir));
  });

  afterAll(async () => {
    if (prism) await stopPrism(prism);
    await kit?.close();
  });

  const server: E2EServer = {
    get url() {
      return started().url;
    },
    traffic,
    client: (token, clientOptions = {}) =>
      started().client(token, { random: () => 0, fetch: recordingFetch(traffic), ...clientOptions }),
    get admin() {
      admin ??= server.client('mkt_unused_the_test_helpers_use_their_key');
      return admin;
    },
    async newUser(name, clientOptions) {
      const email = `${name.toLowerCase().replace(/\W+/g, '.')}-${randomBytes(4).toString('hex')}@example.com`;
      const { user, access_token } = await server.admin.testHelpers.createUser({ user: { name, email } });
      return { user, token: access_token.token, client: server.client(access_token.token, clientOptions) };
    },
    sql: (query, params = []) => started().sql(query, params),
  };
  return server;
}

/** A real PNG (8-bit RGB, one colour) made in memory. */
export function png(
  width: number,
  height: number,
  [r, g, b]: [number, number, number],
): Uint8Array<ArrayBuffer> {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // bit depth 8, truecolour, deflate, no filter, no interlace
  const row = Buffer.from([0, ...Array.from({ length: width }, () => [r, g, b]).flat()]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', header),
      chunk('IDAT', deflateSync(pixels)),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  );
}

/** The bytes served at `url` (uploads are public: no token). */
export async function download(url: string): Promise<{ type: string | null; bytes: Uint8Array }> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
  return { type: response.headers.get('content-type'), bytes: new Uint8Array(await response.arrayBuffer()) };
}

/** What a child process printed, and how it ended. */
export interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end (stdin: `input`, then closed), collecting its output. A command that
 * stops reading its stdin before taking all of `input` is no error here (EPIPE): its exit says.
 */
export function runChild(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {},
): Promise<ChildRun> {
  const child = spawn(command, args, { env: options.env, cwd: options.cwd });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdin.on('error', () => {});
  child.stdin.end(options.input ?? '');
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
