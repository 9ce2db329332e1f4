/**
 * The confirmation a delete, a transition or a token mint asks (elicitation), as a host sees it:
 * on which stream it comes over Streamable HTTP, how long the user has, what any failure of it
 * gives the model, and that cancelling the call closes the question. In process, on a stand-in
 * API that records what reaches it (nothing may, unless the user confirmed).
 */
import { once } from 'node:events';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type CallToolResult,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, onTestFinished, test, vi } from 'vitest';
import { CONFIRM_TIMEOUT_MS, createServer, serveHttp } from '../src/index.js';

/** A made token, as the API answers a confirmed `me_access_tokens_create`. */
const made = {
  id: 't1',
  description: 'agent',
  permission: 'read',
  created_at: '2026-01-01T00:00:00Z',
  last_used_at: null,
  token: `mkt_${'A'.repeat(43)}000000`,
};

/**
 * An organization whose name (as anyone who can edit it may write it) is made to fake a question:
 * a line separator and a right-to-left override, then far more text than a dialog line holds.
 */
const hostile = {
  id: 'hostile',
  name: `Acme\u2028\u202e${'x'.repeat(200)}`,
  privacy_setting: 'private',
  website: null,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  url: 'http://127.0.0.1/organizations/hostile.json',
};

/**
 * A stand-in API that records the requests it gets; it makes a token, has no shipping address (an
 * empty `404`, as the API answers), has the organization `hostile`, and answers the rest `204`.
 */
let api: Server;
let apiUrl: string;
const received: string[] = [];
beforeAll(async () => {
  api = createHttpServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    if (req.method === 'POST')
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(made));
    else if (req.url === '/me/address.json') res.writeHead(404).end();
    else if (req.method === 'GET' && req.url === '/organizations/hostile.json')
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(hostile));
    else res.writeHead(204).end();
  });
  api.listen(0, '127.0.0.1');
  await once(api, 'listening');
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => api.close(() => resolve())));
afterEach(() => {
  vi.useRealTimers();
});

/** `me_access_tokens_create` asks first and reads nothing before asking: the API sees only a confirmed call. */
const mint = { name: 'me_access_tokens_create', arguments: { description: 'agent', permission: 'read' } };

const detail = (result: CallToolResult) =>
  JSON.parse((result.content[0] as { text: string }).text) as {
    status: number | null;
    error?: string;
    hint?: string;
  };

/** A promise and its resolve (the library's target predates `Promise.withResolvers`). */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** An in-process client that can ask the user; `answer` is the host's elicitation handler. */
async function asking(
  answer: (signal: AbortSignal, question: string) => Promise<ElicitResult> | ElicitResult,
): Promise<Client> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await createServer({ token: 'mkt_test', baseUrl: apiUrl }).connect(a);
  const client = new Client(
    { name: 'confirm-test', version: '1.0.0' },
    { capabilities: { elicitation: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
    answer(extra.signal, request.params.message),
  );
  await client.connect(b);
  onTestFinished(() => client.close());
  return client;
}

/** The JSON-RPC messages of a `text/event-stream` body, as they come. */
async function* messagesOf(response: Response): AsyncGenerator<Record<string, unknown>> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as ReadableStream<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const data = buffer
        .slice(0, end)
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .join('\n');
      buffer = buffer.slice(end + 2);
      if (data) yield JSON.parse(data) as Record<string, unknown>;
    }
  }
}

describe('over Streamable HTTP', () => {
  const secret = 'confirm-secret-0123456789abcdef';
  const headers = {
    Authorization: `Bearer ${secret}`,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'Mcp-Protocol-Version': '2025-06-18',
  };
  const post = (url: string, body: unknown, session?: string) =>
    fetch(url, {
      method: 'POST',
      headers: { ...headers, ...(session && { 'Mcp-Session-Id': session }) },
      body: JSON.stringify(body),
    });

  test('the question comes on the tool call’s own stream, not on the GET stream a client may not keep', async () => {
    const http = await serveHttp(() => createServer({ token: 'mkt_test', baseUrl: apiUrl }), {
      port: 0,
      authToken: secret,
    });
    onTestFinished(() => http.close());
    const opened = await post(http.url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: { elicitation: {} },
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    await opened.text();
    const session = opened.headers.get('mcp-session-id') as string;
    await (await post(http.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
    // A GET stream is open: on the current code the question would go there.
    const closeStandalone = new AbortController();
    onTestFinished(() => closeStandalone.abort());
    const standalone = await fetch(http.url, {
      headers: { ...headers, Accept: 'text/event-stream', 'Mcp-Session-Id': session },
      signal: closeStandalone.signal,
    });
    // Its end (the test closing it) is not a message.
    const standaloneFirst = messagesOf(standalone)
      .next()
      .catch(() => new Promise<never>(() => {}));
    const call = await post(http.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: mint }, session);
    const onCall = messagesOf(call);
    const first = await Promise.race([
      onCall.next().then((m) => ({ stream: 'tools/call', message: m.value })),
      standaloneFirst.then((m) => ({ stream: 'GET', message: m.value })),
    ]);
    expect(first).toMatchObject({ stream: 'tools/call', message: { method: 'elicitation/create' } });
    const question = first.message as { id: number };
    await (
      await post(http.url, { jsonrpc: '2.0', id: question.id, result: { action: 'decline' } }, session)
    ).text();
    const answer = (await onCall.next()).value as { id: number; result: CallToolResult };
    expect(answer.id).toBe(2);
    expect(answer.result.isError).toBe(true);
    expect(detail(answer.result).error).toMatch(/did not confirm/);
  });
});

describe('how long the user has, and what a failed question gives the model', () => {
  test('a user slower than the SDK’s 60 s default still confirms; no answer within CONFIRM_TIMEOUT_MS is an isError result, and the host’s question is closed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    expect(CONFIRM_TIMEOUT_MS).toBe(10 * 60_000);
    let asked = deferred<AbortSignal>();
    let reply = deferred<ElicitResult>();
    const client = await asking((signal) => {
      asked.resolve(signal);
      return reply.promise;
    });
    // The client's own request timeout is a faked timer too: it waits longer than the question.
    const wait = { timeout: 2 * CONFIRM_TIMEOUT_MS };
    const before = received.length;

    const slow = client.callTool(mint, undefined, wait);
    await asked.promise;
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    reply.resolve({ action: 'accept', content: { confirm: true } });
    const confirmed = (await slow) as CallToolResult;
    expect(confirmed.isError, JSON.stringify(confirmed)).toBeFalsy();
    expect(received.slice(before)).toEqual(['POST /me/access_tokens.json']);

    asked = deferred<AbortSignal>();
    reply = deferred<ElicitResult>();
    const unanswered = client.callTool(mint, undefined, wait);
    const question = await asked.promise;
    await vi.advanceTimersByTimeAsync(CONFIRM_TIMEOUT_MS);
    const result = (await unanswered) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(detail(result)).toEqual({
      status: null,
      error: 'Not confirmed: the user gave no answer within 10 minutes; nothing was sent.',
      hint: 'Call again when the user can answer, or ask the user in the conversation first.',
    });
    expect(question.aborted).toBe(true);
    expect(received.slice(before)).toHaveLength(1);
  });

  test('a host whose question fails (its handler throws, or it accepts without the answer asked for) gives an isError result; nothing is sent', async () => {
    const before = received.length;
    const throwing = await asking(() => {
      throw new Error('the dialog crashed');
    });
    const thrown = (await throwing.callTool(mint)) as CallToolResult;
    expect(thrown.isError).toBe(true);
    expect(detail(thrown).error).toMatch(
      /^Not confirmed: the host could not ask the user \(.*the dialog crashed.*\); nothing was sent\.$/,
    );
    // A host's message of any length is cut short.
    const verbose = await asking(() => {
      throw new Error('x'.repeat(100_000));
    });
    expect(detail((await verbose.callTool(mint)) as CallToolResult).error?.length).toBeLessThan(400);
    const empty = await asking(() => ({ action: 'accept', content: {} }));
    const accepted = (await empty.callTool(mint)) as CallToolResult;
    expect(accepted.isError).toBe(true);
    expect(detail(accepted).error).toMatch(
      /^Not confirmed: the host could not ask the user \(.*confirm.*\); nothing was sent\.$/,
    );
    expect(received.length).toBe(before);
  });
});

describe('text a model or another user wrote, in a question', () => {
  /** A host that shows its questions to `asked` and declines them. */
  const showing = (asked: string[]) =>
    asking((_signal, question) => {
      asked.push(question);
      return { action: 'decline' };
    });

  test('a token’s description cannot fake the permission: the permission comes first, the description quoted on one line and cut short', async () => {
    const asked: string[] = [];
    const client = await showing(asked);
    const description = `nightly backup (read-only), permission=read)?${'\n'.repeat(30)}.`;
    const result = (await client.callTool({
      name: 'me_access_tokens_create',
      arguments: { description, permission: 'write' },
    })) as CallToolResult;
    expect(detail(result).error).toBe('The user did not confirm; nothing was changed.');
    expect(asked).toEqual([
      'Create an access token (its value is shown once) (permission=write, ' +
        `description="nightly backup (read-only), permission=read)?${'\\n'.repeat(28)}…" (76 characters))?`,
    ]);
    // A plain description is quoted too: only the permission, one of a closed set, is bare.
    await client.callTool({
      name: 'me_access_tokens_create',
      arguments: { description: 'agent', permission: 'read' },
    });
    expect(asked[1]).toBe(
      'Create an access token (its value is shown once) (permission=read, description="agent")?',
    );
  });

  test('a name read back is quoted on one line, its invisible and line-breaking characters shown as escapes, cut short', async () => {
    const asked: string[] = [];
    const client = await showing(asked);
    await client.callTool({ name: 'organizations_delete', arguments: { id: 'hostile' } });
    expect(asked).toEqual([
      `Delete an organization (owner only): "Acme\\u2028\\u202e${'x'.repeat(84)}…" (206 characters) (id=hostile)?`,
    ]);
  });
});

describe('what is not there', () => {
  test('is its 404, said without asking: deleting the shipping address of a user who has none', async () => {
    const asked: string[] = [];
    const client = await asking(() => {
      asked.push('asked');
      return { action: 'accept', content: { confirm: true } };
    });
    const before = received.length;
    const result = (await client.callTool({ name: 'me_address_delete', arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(detail(result)).toEqual({
      status: 404,
      hint: 'Nothing to delete: there is none for this user (never made, or deleted already); or the base URL does not point at the API.',
    });
    expect(asked).toEqual([]);
    // Only read: no DELETE was sent.
    expect(received.slice(before)).toEqual(['GET /me/address.json']);
  });
});

describe('a call the host cancels', () => {
  test('closes its open question: the host is told to take its dialog down, and nothing is sent', async () => {
    const asked = deferred<AbortSignal>();
    let answered = false;
    const client = await asking((signal) => {
      if (!answered) {
        answered = true;
        return { action: 'decline' };
      }
      asked.resolve(signal);
      return new Promise<ElicitResult>(() => {});
    });
    // A question declined first: the MCP SDK's client ignores the cancellation of a request whose
    // id is 0 (a falsy id), and the server numbers its requests from 0.
    expect(((await client.callTool(mint)) as CallToolResult).isError).toBe(true);
    const before = received.length;
    const cancel = new AbortController();
    const call = client.callTool(mint, undefined, { signal: cancel.signal });
    const question = await asked.promise;
    cancel.abort();
    await expect(call).rejects.toThrow();
    // The server handles the cancellation before this ping, and answers in order.
    await client.ping();
    expect(question.aborted).toBe(true);
    expect(received.length).toBe(before);
  });
});
