/**
 * Hostile local clients (issue #25, item 5): the HTTP mode's bearer secret, idle and surplus
 * sessions, and file arguments (`logo`, `banner_image`) that are not what they seem. The bin runs as
 * a child process where its start-up matters (the secret); sessions and files are tested in-process
 * (an injected clock; a fresh user whose token must stay unused when nothing may reach the API).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publicEndpoints } from '@app/schemas';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import { download, png, runChild, type TestUser, useServer } from '../../sdk/test/e2e/harness.js';
import { DEFAULT_MAX_FILE_BYTES, defaultAllowDirs } from '../src/files.js';
import { createServer, DEFAULT_MAX_BODY_BYTES, serveHttp } from '../src/index.js';

const server = useServer();
// The built bin (vitest.config.ts builds it once for the run).
const bin = join(import.meta.dirname, '../dist/bin.js');
const {
  NODE_PATH: _hoisted,
  MARKETPLACE_MCP_AUTH_TOKEN: _secret,
  ...inherited
} = process.env as Record<string, string>;
const nodeArgs = [bin];

let user: TestUser;
beforeAll(async () => {
  user = await server.newUser('Hostile');
});

const scratch = mkdtempSync(join(tmpdir(), 'mcp-hostile-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Started {
  url: string;
  child: ChildProcess;
  /** Everything the child wrote to stderr so far. */
  stderr: () => string;
  /** Resolves with the match once stderr matches `pattern` (it may come after the stdout line). */
  stderrMatch: (pattern: RegExp) => Promise<RegExpExecArray>;
}

/** Starts `marketplace-mcp --http --port 0`; resolves once it prints where it listens. */
async function httpServer(args: string[], extraEnv: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, [...nodeArgs, '--http', '--port', '0', ...args], {
    env: { ...inherited, MARKETPLACE_TOKEN: user.token, MARKETPLACE_BASE_URL: server.url, ...extraEnv },
  });
  onTestFinished(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
  let err = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    err += chunk;
  });
  const stderrMatch = async (pattern: RegExp) => {
    for (;;) {
      const match = pattern.exec(err);
      if (match) return match;
      if (child.exitCode !== null) throw new Error(`no ${pattern} on stderr: ${err}`);
      await once(child.stderr, 'data');
    }
  };
  let out = '';
  child.stdout.setEncoding('utf8');
  for await (const chunk of child.stdout) {
    out += chunk;
    const match = /listening on (http:\/\/\S+)/.exec(out);
    if (match) return { url: match[1] as string, child, stderr: () => err, stderrMatch };
  }
  throw new Error(`marketplace-mcp --http did not start: ${out} ${err}`);
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** POSTs an initialize request (or `body`) with these headers. */
function post(url: string, headers: Record<string, string>, body = initialize): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
}

/** An MCP client of `url` that sends this bearer secret. */
async function httpClient(url: string, secret: string): Promise<Client> {
  const client = new Client({ name: 'hostile', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${secret}` } },
  });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return client;
}

describe('the bearer secret of --http', () => {
  const secret = 'a-long-secret-for-the-tests-0123456789';

  test('no, a wrong and the right bearer: 401, 401, 200; tools/list needs the secret', async () => {
    const { url, stderr } = await httpServer(['--auth-token', secret]);

    const missing = await post(url, {});
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    expect(await missing.json()).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32000, message: expect.stringMatching(/^Unauthorized/) },
      id: null,
    });

    const wrong = await post(url, { Authorization: `Bearer ${secret.slice(0, -1)}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer\b.*error="invalid_token"/);
    for (const authorization of [`Bearer ${secret}x`, `Basic ${secret}`, secret, 'Bearer '])
      expect((await post(url, { Authorization: authorization })).status, authorization).toBe(401);

    const right = await post(url, { Authorization: `Bearer ${secret}` });
    expect(right.status).toBe(200);
    const sessionId = right.headers.get('mcp-session-id') as string;
    expect(sessionId).toBeTruthy();
    await right.body?.cancel();
    // A session id is no credential: without the secret, that session is 401 too.
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect((await post(url, { 'Mcp-Session-Id': sessionId }, list)).status).toBe(401);
    const stream = await fetch(url, {
      headers: { 'Mcp-Session-Id': sessionId, Accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(401);
    const end = await fetch(url, { method: 'DELETE', headers: { 'Mcp-Session-Id': sessionId } });
    expect(end.status).toBe(401);

    const client = await httpClient(url, secret);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(publicEndpoints.length);
    expect(tools.map((t) => t.name)).toContain('me_access_tokens_create');

    // A given secret is not echoed anywhere.
    expect(stderr()).not.toContain(secret);
  });

  test('MARKETPLACE_MCP_AUTH_TOKEN gives the secret too', async () => {
    const { url } = await httpServer([], { MARKETPLACE_MCP_AUTH_TOKEN: secret });
    expect((await post(url, {})).status).toBe(401);
    const client = await httpClient(url, secret);
    expect((await client.listTools()).tools).toHaveLength(publicEndpoints.length);
  });

  test('without one, a random secret is generated and printed once on stderr', async () => {
    const { url, stderr, stderrMatch } = await httpServer([]);
    const generated = (await stderrMatch(/Authorization: Bearer (\S+)\n/))[1] as string;
    expect(generated.length).toBeGreaterThanOrEqual(32);
    expect((await post(url, {})).status).toBe(401);
    const client = await httpClient(url, generated);
    expect((await client.listTools()).tools).toHaveLength(publicEndpoints.length);
    expect(stderr().split(generated)).toHaveLength(2);

    // Another start has another secret.
    const again = await httpServer([]);
    expect((await again.stderrMatch(/Authorization: Bearer (\S+)\n/))[1]).not.toBe(generated);
  });

  test('a short secret, --auth-token without --http, an --allow-dir that is no directory: usage errors (exit 2)', async () => {
    const env = { ...inherited, MARKETPLACE_TOKEN: user.token, MARKETPLACE_BASE_URL: server.url };
    const run = (args: string[]) => runChild(process.execPath, [...nodeArgs, ...args], { env });
    const short = await run(['--http', '--port', '0', '--auth-token', 'short']);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/^marketplace-mcp: the bearer secret .* needs at least 16 characters/);
    const stdio = await run(['--auth-token', secret]);
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toMatch(/^marketplace-mcp: --auth-token needs --http/);
    const missing = await run(['--allow-dir', join(scratch, 'no-such-dir')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^marketplace-mcp: --allow-dir .*no-such-dir is not a directory/);
  });
});

describe('messages over stdio the transport cannot read', () => {
  const env = () => ({ ...inherited, MARKETPLACE_TOKEN: user.token, MARKETPLACE_BASE_URL: server.url });
  /** Runs the bin over stdio with this input (a server that stops reading first is no test error). */
  const run = (input: string) => runChild(process.execPath, nodeArgs, { env: env(), input });
  /** The messages the server wrote on stdout, one a line. */
  const answers = (stdout: string) =>
    stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  const ping = (id: number | string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
  /** JSON-RPC's answer to a message it cannot take (section 5.1), with this id. */
  const refused = (code: -32700 | -32600, id: number | string | null = null) => ({
    jsonrpc: '2.0',
    id,
    error: {
      code,
      message: expect.stringMatching(code === -32700 ? /^Parse error: / : /^Invalid Request: /),
    },
  });
  const unreadable = /^marketplace-mcp: a message on stdin could not be read: /;

  test('a line that is no JSON is answered with -32700 (id null), said on stderr, and the server goes on', async () => {
    const ran = await run(`{"jsonrpc":"2.0","id":900,"method":"ping"\nnot json\n${ping(2)}\n`);
    expect(ran.code).toBe(0);
    expect(answers(ran.stdout)).toEqual([
      refused(-32700),
      refused(-32700),
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    const lines = ran.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toMatch(unreadable);
  });

  test('JSON that is no JSON-RPC message is answered with -32600, with its id when it has one', async () => {
    const lines = [
      '{"jsonrpc":"2.0","id":"a","method":"ping","extra":1}',
      '{"jsonrpc":"1.0","id":7,"method":"ping"}',
      '{"jsonrpc":"2.0","id":8,"method":42}',
      // A batch: MCP 2025-06-18 removed JSON-RPC batching, and the SDK's message schema takes none.
      `[${ping(3)},${ping(4)}]`,
      '42',
      'null',
      '{"jsonrpc":"2.0","id":null,"method":"ping"}',
      // A malformed response is not answered with its id: that id is one of the server's own requests.
      '{"jsonrpc":"2.0","id":5,"result":"x"}',
      '{"jsonrpc":"2.0","method":"notifications/initialized","params":1}',
      ping(2),
    ];
    const ran = await run(`${lines.join('\n')}\n`);
    expect(ran.code).toBe(0);
    expect(answers(ran.stdout)).toEqual([
      refused(-32600, 'a'),
      refused(-32600, 7),
      refused(-32600, 8),
      refused(-32600),
      refused(-32600),
      refused(-32600),
      refused(-32600),
      refused(-32600),
      refused(-32600),
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    expect(answers(ran.stdout)[0].error.message).toMatch(/extra/);
    expect(answers(ran.stdout)[3].error.message).toMatch(/batch/);
    const said = ran.stderr.split('\n').filter(Boolean);
    expect(said).toHaveLength(9);
    for (const line of said) expect(line).toMatch(unreadable);
  });

  test('a line over 10 MiB is skipped unread and answered with -32600 (id null); the next request is answered', async () => {
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'organizations_create', arguments: { name: 'x'.repeat(11_000_000) } },
    });
    const ran = await run(`${call}\n${ping(2)}\n`);
    expect(ran.code).toBe(0);
    expect(answers(ran.stdout)).toEqual([refused(-32600), { jsonrpc: '2.0', id: 2, result: {} }]);
    expect(answers(ran.stdout)[0].error.message).toMatch(/10485760 bytes/);
    expect(ran.stderr).toMatch(
      /^marketplace-mcp: a message on stdin could not be read: .*10485760 bytes.*\n$/,
    );
  });

  test('a line of exactly 10 MiB is read (the limit is the message, not its line end)', async () => {
    const head = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"pad":"';
    const tail = '"}}}';
    const line = `${head}${'x'.repeat(10 * 1024 * 1024 - head.length - tail.length)}${tail}`;
    const ran = await run(`${line}\r\n${ping(2)}\n`);
    expect(ran.code).toBe(0);
    // Answers come as requests finish, in no given order.
    expect(answers(ran.stdout)).toHaveLength(2);
    expect(answers(ran.stdout)).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: 2, result: {} },
      ]),
    );
    expect(ran.stderr).toBe('');
  });

  test('\\r\\n line ends are taken; an empty line is no JSON, as the SDK’s transport has it (-32700)', async () => {
    const ran = await run(`${ping(1)}\r\n\n${ping(2)}\r\n`);
    expect(ran.code).toBe(0);
    // The refusal is written as the line is read, the pings' answers once they ran.
    expect(answers(ran.stdout)).toHaveLength(3);
    expect(answers(ran.stdout)).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 1, result: {} },
        refused(-32700),
        { jsonrpc: '2.0', id: 2, result: {} },
      ]),
    );
    expect(ran.stderr.split('\n').filter(Boolean)).toEqual([expect.stringMatching(unreadable)]);
  });
});

describe('usage errors of the command line (exit 2)', () => {
  const env = () => ({ ...inherited, MARKETPLACE_TOKEN: user.token, MARKETPLACE_BASE_URL: server.url });
  const run = (args: string[], vars: Record<string, string> = env()) =>
    runChild(process.execPath, [...nodeArgs, ...args], { env: vars });

  test('--port without --http, or a port that is not a decimal number from 0 to 65535', async () => {
    const stdio = await run(['--port', '8080']);
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toMatch(/^marketplace-mcp: --port needs --http\n/);
    for (const port of ['', '0x1F90', '1e3', '65536']) {
      const bad = await run(['--http', `--port=${port}`]);
      expect(bad.code, port).toBe(2);
      expect(bad.stderr, port).toMatch(
        /^marketplace-mcp: --port must be a decimal port number from 0 to 65535/,
      );
    }
  });

  test('a usage error is one line and where to find help, not the whole help', async () => {
    const unknown = await run(['--tools', 'foo']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'marketplace-mcp: unknown tool group "foo" (the groups: organizations, collabs, campaigns, members, me)\n' +
        'Run `marketplace-mcp --help` for usage.\n',
    );
    const option = await run(['--frobnicate']);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(
      /^marketplace-mcp: Unknown option '--frobnicate'[^\n]*\nRun `marketplace-mcp --help` for usage\.\n$/,
    );
  });

  test('a missing variable is named alone', async () => {
    const { MARKETPLACE_TOKEN: _token, ...noToken } = env();
    const { MARKETPLACE_BASE_URL: _url, ...noUrl } = env();
    const { MARKETPLACE_BASE_URL: _u, MARKETPLACE_TOKEN: _t, ...neither } = env();
    for (const [vars, message] of [
      [noToken, 'marketplace-mcp: set MARKETPLACE_TOKEN (the access token, mkt_…)\n'],
      [noUrl, "marketplace-mcp: set MARKETPLACE_BASE_URL (the API's address, e.g. http://127.0.0.1:3000)\n"],
      [neither, 'marketplace-mcp: set MARKETPLACE_TOKEN and MARKETPLACE_BASE_URL\n'],
    ] as const) {
      const missing = await run([], vars);
      expect(missing.code).toBe(2);
      expect(missing.stderr.startsWith(message), missing.stderr).toBe(true);
    }
  });
});

describe('sessions over HTTP', () => {
  const secret = 'sessions-secret-0123456789abcdef';
  const minute = 60_000;

  /** An in-process HTTP server on a clock the test moves; `servers` are the MCP servers it made. */
  async function start(options: { maxSessions?: number } = {}) {
    let now = 0;
    const servers: McpServer[] = [];
    const http = await serveHttp(
      () => {
        const made = createServer({ token: user.token, baseUrl: server.url });
        servers.push(made);
        return made;
      },
      { port: 0, authToken: secret, now: () => now, ...options },
    );
    onTestFinished(() => http.close());
    return {
      http,
      servers,
      setClock: (ms: number) => {
        now = ms;
      },
    };
  }

  const headers = { Authorization: `Bearer ${secret}`, 'Mcp-Protocol-Version': '2025-06-18' };
  /**
   * Opens a session as a client does (initialize, then `notifications/initialized`), over plain
   * requests: the SDK's client would also open its GET stream at a moment of its own choosing.
   */
  const sessionOf = async (url: string) => {
    const opened = await post(url, headers);
    expect(opened.status).toBe(200);
    await opened.text();
    const id = opened.headers.get('mcp-session-id') as string;
    const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect((await post(url, { ...headers, 'Mcp-Session-Id': id }, initialized)).status).toBe(202);
    return { id };
  };

  const listWith = (url: string, id: string) =>
    post(
      url,
      { ...headers, 'Mcp-Session-Id': id },
      JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    );

  test('a tools/call without `arguments` runs as `{}` over HTTP too', async () => {
    const { http } = await start();
    const client = await httpClient(http.url, secret);
    const result = (await client.callTool({ name: 'organizations_list' })) as CallToolResult;
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ data: [], page: 1, total_count: 0 });
  });

  test('answers do not name the framework (no X-Powered-By)', async () => {
    const { http } = await start();
    const opened = await post(http.url, headers);
    await opened.text();
    expect(opened.status).toBe(200);
    expect(opened.headers.get('x-powered-by')).toBeNull();
    const refused = await post(http.url, headers, '{');
    await refused.text();
    expect(refused.headers.get('x-powered-by')).toBeNull();
  });

  test('a session idle for 30 minutes is closed; its id is then "Session not found" (404)', async () => {
    const { http, servers, setClock } = await start();
    const a = await sessionOf(http.url);
    const b = await sessionOf(http.url);
    expect(http.liveSessions()).toBe(2);

    setClock(29 * minute);
    expect((await listWith(http.url, a.id)).status).toBe(200); // a is used; b is not
    setClock(30 * minute);
    expect((await listWith(http.url, a.id)).status).toBe(200);
    expect(http.liveSessions()).toBe(1);
    expect(servers.map((s) => s.isConnected())).toEqual([true, false]);

    const expired = await listWith(http.url, b.id);
    expect(expired.status).toBe(404);
    expect(await expired.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32001, message: 'Session not found' },
      id: null,
    });
    const closeB = await fetch(http.url, {
      method: 'DELETE',
      headers: { ...headers, 'Mcp-Session-Id': b.id },
    });
    expect(closeB.status).toBe(404);

    setClock(60 * minute - 1); // a: idle since minute 30, for 30 minutes less 1 ms: still open
    expect((await listWith(http.url, a.id)).status).toBe(200);
    setClock(90 * minute - 1);
    expect((await listWith(http.url, a.id)).status).toBe(404);
    expect(http.liveSessions()).toBe(0);
    expect(servers.map((s) => s.isConnected())).toEqual([false, false]);
  });

  test('the idle bound is configurable', async () => {
    let now = 0;
    const http = await serveHttp(() => createServer({ token: user.token, baseUrl: server.url }), {
      port: 0,
      authToken: secret,
      now: () => now,
      idleTimeoutMs: 5 * minute,
    });
    onTestFinished(() => http.close());
    const a = await sessionOf(http.url);
    now = 5 * minute + 1;
    expect((await listWith(http.url, a.id)).status).toBe(404);
    expect(http.liveSessions()).toBe(0);
  });

  test('live sessions are capped: a new one closes the least recently used', async () => {
    const { http, servers, setClock } = await start({ maxSessions: 2 });
    const first = await sessionOf(http.url);
    setClock(1);
    const second = await sessionOf(http.url);
    setClock(2);
    expect((await listWith(http.url, first.id)).status).toBe(200); // second is now the least recently used
    setClock(3);
    const third = await sessionOf(http.url);
    expect(http.liveSessions()).toBe(2);
    expect(servers.map((s) => s.isConnected())).toEqual([true, false, true]);
    expect((await listWith(http.url, second.id)).status).toBe(404);
    expect((await listWith(http.url, first.id)).status).toBe(200);
    expect((await listWith(http.url, third.id)).status).toBe(200);
  });
});

describe('request bodies over HTTP', () => {
  const secret = 'bodies-secret-0123456789abcdef';
  const headers = { Authorization: `Bearer ${secret}`, 'Mcp-Protocol-Version': '2025-06-18' };
  const started = async () => {
    const http = await serveHttp(() => createServer({ token: user.token, baseUrl: server.url }), {
      port: 0,
      authToken: secret,
    });
    onTestFinished(() => http.close());
    return http;
  };
  const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

  test('a tool call carrying a 5 MiB file as a data: URL (about 7 MB of JSON) is taken, as over stdio: its answer is a tool result', async () => {
    const http = await started();
    const client = await httpClient(http.url, secret);
    // The largest file the README takes, as a data: URL: not an image, so refused before the API.
    const logo = `data:image/png;base64,${Buffer.alloc(DEFAULT_MAX_FILE_BYTES, 'x').toString('base64')}`;
    const result = (await client.callTool({
      name: 'organizations_create',
      arguments: { name: 'Never sent', logo },
    })) as CallToolResult;
    expect(result.isError, text(result).slice(0, 500)).toBe(true);
    expect(JSON.parse(text(result))).toMatchObject({
      status: null,
      errors: { logo: ['data: URL is not a PNG, JPEG, WebP or GIF image (checked here: nothing was sent)'] },
    });
  });

  test('a body over the limit, or one that is no JSON, is a JSON-RPC error (413, 400 -32700), not an HTML page with a stack trace', async () => {
    const http = await started();
    const call = (logo: string) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'organizations_create', arguments: { name: 'x', logo } },
      });
    // A body of `bytes` bytes (all ASCII).
    const sized = (bytes: number) =>
      call(`data:image/png;base64,${'A'.repeat(bytes - call('').length - 22)}`);
    expect(sized(DEFAULT_MAX_BODY_BYTES)).toHaveLength(DEFAULT_MAX_BODY_BYTES);
    // At the limit it is read (then refused for want of a session, as any call without one).
    const atLimit = await post(http.url, headers, sized(DEFAULT_MAX_BODY_BYTES));
    expect(atLimit.status).toBe(400);
    expect(((await atLimit.json()) as { error: unknown }).error).toEqual({
      code: -32000,
      message: 'Bad Request: no valid session id',
    });
    const tooLarge = await post(http.url, headers, sized(DEFAULT_MAX_BODY_BYTES + 1));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await tooLarge.json()).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: `Payload Too Large: a request body must not exceed ${DEFAULT_MAX_BODY_BYTES} bytes (a file argument of up to ${DEFAULT_MAX_FILE_BYTES} bytes fits, as a data: URL)`,
      },
      id: null,
    });

    const broken = await post(http.url, headers, '{"jsonrpc":"2.0","id":900,"method":"ping"');
    expect(broken.status).toBe(400);
    expect(broken.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await broken.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: expect.stringMatching(/^Parse error: the body is not JSON/) },
      id: null,
    });
  });
});

describe('file arguments', () => {
  const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;
  let owner: TestUser;
  let dir: string;
  let outside: string;

  beforeAll(async () => {
    owner = await server.newUser('Files');
    dir = join(scratch, 'allowed');
    outside = join(scratch, 'outside');
    mkdirSync(dir);
    mkdirSync(outside);
  });

  async function connect(options: { allowDirs?: string[]; maxFileBytes?: number }): Promise<Client> {
    const client = new Client({ name: 'files', version: '1.0.0' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await createServer({ token: owner.token, baseUrl: server.url, yes: true, ...options }).connect(a);
    await client.connect(b);
    onTestFinished(() => client.close());
    return client;
  }

  /** Calls organizations_create with this logo; must be refused on `logo` before any request. */
  async function refused(client: Client, logo: string): Promise<string> {
    const result = (await client.callTool({
      name: 'organizations_create',
      arguments: { name: 'Never sent', logo },
    })) as CallToolResult;
    expect(result.isError, text(result)).toBe(true);
    const detail = JSON.parse(text(result)) as { status: null; errors: { logo: string[] }; hint: string };
    expect(detail.status).toBeNull();
    expect(detail.hint).toBe('Fix these fields and call again: logo.');
    return detail.errors.logo.join(' ');
  }

  /** The owner's token was never used, and no organization exists: nothing reached the API. */
  async function nothingSent() {
    expect(
      await server.sql('select last_used_at from access_tokens where user_id = ?', [owner.user.id]),
    ).toEqual([{ last_used_at: null }]);
    expect(await server.sql("select id from organizations where name = 'Never sent'")).toEqual([]);
  }

  test('/dev/zero, a directory, a file over the limit, a file outside the allowed dirs (also through a symlink): refused', async () => {
    const client = await connect({ allowDirs: [dir, '/dev'] });
    expect(await refused(client, '/dev/zero')).toMatch(/is not a regular file/);
    expect(await refused(client, dir)).toMatch(/is not a regular file/);

    const big = join(dir, 'big.png');
    writeFileSync(big, Buffer.concat([png(4, 4, [1, 2, 3]), Buffer.alloc(5 * 1024 * 1024)]));
    expect(await refused(client, big)).toMatch(/is larger than 5242880 bytes/);

    const foreign = join(outside, 'logo.png');
    writeFileSync(foreign, png(4, 4, [9, 9, 9]));
    expect(await refused(client, foreign)).toMatch(
      /is outside the directories file arguments may be read from/,
    );
    symlinkSync(foreign, join(dir, 'link.png'));
    expect(await refused(client, join(dir, 'link.png'))).toMatch(
      /is outside the directories file arguments may be read from/,
    );
    expect(await refused(client, join(dir, '..', 'outside', 'logo.png'))).toMatch(
      /is outside the directories file arguments may be read from/,
    );
    expect(await refused(client, join(dir, 'missing.png'))).toMatch(/cannot be read/);

    // The working directory is the default; /dev is not allowed there.
    const byDefault = await connect({});
    expect(await refused(byDefault, '/dev/zero')).toMatch(
      /is outside the directories file arguments may be read from/,
    );

    const small = await connect({ allowDirs: [dir], maxFileBytes: 16 });
    const dataUrl = `data:image/png;base64,${Buffer.from(png(4, 4, [1, 1, 1])).toString('base64')}`;
    expect(await refused(small, dataUrl)).toMatch(/is larger than 16 bytes/);

    await nothingSent();
  });

  test('a path outside the allowed directories has one answer whether it exists or not (no probing of the disk), naming those directories; a relative one says where it was resolved', async () => {
    const client = await connect({ allowDirs: [dir] });
    const there = join(outside, 'there.png');
    writeFileSync(there, png(4, 4, [9, 9, 9]));
    const outsideOf = (path: string) =>
      `${path} is outside the directories file arguments may be read from (${dir}; --allow-dir): copy the file into one of them, or pass the image as a data: URL (data:image/png;base64,…)`;
    for (const path of [
      there,
      join(outside, 'missing.png'),
      '/etc/passwd',
      '/etc/no-such-file',
      '/no/such/dir/x.png',
    ])
      expect(await refused(client, path), path).toBe(outsideOf(path));
    // Relative: against the server's working directory, not the host's.
    expect(await refused(client, 'logo.png')).toBe(
      `${outsideOf('logo.png')}. A relative path is resolved against the MCP server's working directory, ${process.cwd()}`,
    );
    await nothingSent();
  });

  test('a file or data: URL that is not a PNG, JPEG, WebP or GIF image is refused before it is sent, whatever its name', async () => {
    const client = await connect({ allowDirs: [dir] });
    const secrets = join(dir, 'notes.png');
    writeFileSync(secrets, 'SECRET=hunter2\n');
    expect(await refused(client, secrets)).toBe(
      `${secrets} is not a PNG, JPEG, WebP or GIF image (checked here: nothing was sent)`,
    );
    const dataUrl = `data:image/png;base64,${Buffer.from('SECRET=hunter2').toString('base64')}`;
    expect(await refused(client, dataUrl)).toMatch(/^data: URL is not a PNG, JPEG, WebP or GIF image/);
    await nothingSent();
  });

  test('a huge value is not echoed back: raw base64 is told to be a data: URL, a long path is cut short', async () => {
    const client = await connect({ allowDirs: [dir] });
    const base64 = Buffer.concat([png(4, 4, [1, 2, 3]), Buffer.alloc(1_500_000, 7)]).toString('base64');
    const result = (await client.callTool({
      name: 'organizations_create',
      arguments: { name: 'Never sent', logo: base64 },
    })) as CallToolResult;
    expect(text(result).length).toBeLessThan(1000);
    expect(await refused(client, base64)).toBe(
      `${base64.slice(0, 100)}… (${base64.length} characters) looks like raw base64, not a file path: pass the image as a data: URL (data:image/png;base64,…)`,
    );
    const long = join(dir, 'x'.repeat(5000));
    expect(await refused(client, long)).toBe(
      `${long.slice(0, 100)}… (${long.length} characters) cannot be read (no such file)`,
    );
    await nothingSent();
  });

  test('started in the root or the home directory, no directory is allowed by default: file arguments say to pass --allow-dir', async () => {
    expect(defaultAllowDirs('/', '/home/someone')).toEqual([]);
    expect(defaultAllowDirs('/home/someone', '/home/someone')).toEqual([]);
    expect(defaultAllowDirs('/home/someone/', '/home/someone')).toEqual([]);
    expect(defaultAllowDirs('/home/someone/pictures', '/home/someone')).toEqual(['/home/someone/pictures']);
    const client = await connect({ allowDirs: [] });
    const logo = join(dir, 'allowed-nowhere.png');
    writeFileSync(logo, png(4, 4, [1, 2, 3]));
    expect(await refused(client, logo)).toMatch(
      /cannot be read: no directory is allowed for file arguments .*start marketplace-mcp with --allow-dir DIR/,
    );
    await nothingSent();
  });

  test('a file inside an allowed directory is uploaded, also through a symlink that stays inside', async () => {
    const client = await connect({ allowDirs: [dir] });
    const logo = png(4, 4, [200, 10, 10]);
    writeFileSync(join(dir, 'logo.png'), logo);
    symlinkSync(join(dir, 'logo.png'), join(dir, 'alias.png'));
    for (const path of [join(dir, 'logo.png'), join(dir, 'alias.png')]) {
      const result = (await client.callTool({
        name: 'organizations_create',
        arguments: { name: 'Uploaded', logo: path },
      })) as CallToolResult;
      expect(result.isError, text(result)).toBeFalsy();
      const { data } = result.structuredContent as { data: { logo_url: string } };
      expect((await download(data.logo_url)).bytes).toEqual(logo);
    }
    expect(realpathSync(join(dir, 'alias.png'))).toBe(realpathSync(join(dir, 'logo.png')));
  });
});
