import net from 'node:net';
import { delay, HttpResponse, http } from 'msw';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { failedBeforeSending } from '../src/core/retry.js';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  AuthenticationError,
  BadRequestError,
  type Fetch,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  ServiceUnavailableError,
  ValidationError,
} from '../src/index.js';
import { BASE, COLLAB_ID, client, collab, mockServer, ORG_ID, organization } from './fixtures.js';

const server = mockServer({ bypass: true });
const orgUrl = `${BASE}/organizations/${ORG_ID}.json`;
const collabsUrl = `${BASE}/organizations/${ORG_ID}/collabs.json`;
const collabUrl = `${BASE}/organizations/${ORG_ID}/collabs/${COLLAB_ID}.json`;

afterEach(() => {
  vi.useRealTimers();
});

/** Answers with `responses` in turn (the last one repeats), recording when each attempt came. */
function sequence(method: 'get' | 'post' | 'patch' | 'delete', url: string, responses: (() => Response)[]) {
  const times: number[] = [];
  server.use(
    http[method](url, () => {
      times.push(Date.now());
      return (responses[times.length - 1] ?? responses.at(-1))!();
    }),
  );
  return times;
}

const status = (code: number, headers?: Record<string, string>) => () =>
  HttpResponse.json({ error: 'x' }, { status: code, headers });
const ok =
  (body: object, code = 200) =>
  () =>
    HttpResponse.json(body, { status: code });
const gaps = (times: number[]) => times.slice(1).map((t, i) => t - (times[i] as number));

/**
 * The waits between attempts were `expected`. The fake clock may add 1 ms per attempt: a timer of
 * 0 ms set while timers fire is scheduled 1 ms later.
 */
function expectWaits(times: number[], expected: number[]) {
  const actual = gaps(times);
  expect(actual).toHaveLength(expected.length);
  actual.forEach((gap, i) => {
    expect(gap).toBeGreaterThanOrEqual(expected[i] as number);
    expect(gap).toBeLessThanOrEqual((expected[i] as number) + 1);
  });
}

/** Runs `call` under fake timers until it settles, so backoff waits cost no wall-clock time. */
async function withFakeTimers<T>(call: () => Promise<T>): Promise<PromiseSettledResult<T>> {
  vi.useFakeTimers();
  const settled = call().then(
    (value) => ({ status: 'fulfilled', value }) as const,
    (reason: unknown) => ({ status: 'rejected', reason }) as const,
  );
  await vi.advanceTimersByTimeAsync(10 * 60_000);
  return settled;
}

describe('what is retried', () => {
  test('a GET answered 5xx is retried up to maxRetries (3 by default: 4 attempts)', async () => {
    const times = sequence('get', orgUrl, [status(503), status(500), status(502), ok(organization)]);
    await expect(client().organizations.retrieve(ORG_ID)).resolves.toMatchObject({ id: ORG_ID });
    expect(times).toHaveLength(4);
  });

  test('after the last attempt the 5xx is thrown', async () => {
    const times = sequence('get', orgUrl, [status(500)]);
    await expect(client().organizations.retrieve(ORG_ID)).rejects.toBeInstanceOf(InternalServerError);
    expect(times).toHaveLength(4);
  });

  test('maxRetries is configurable per client and per call', async () => {
    const times = sequence('get', orgUrl, [status(503)]);
    await expect(client({ maxRetries: 0 }).organizations.retrieve(ORG_ID)).rejects.toBeInstanceOf(
      ServiceUnavailableError,
    );
    expect(times).toHaveLength(1);
    await expect(
      client({ maxRetries: 0 }).organizations.retrieve(ORG_ID, { maxRetries: 1 }),
    ).rejects.toThrow();
    expect(times).toHaveLength(3);
  });

  test('PATCH and DELETE are retried on 5xx', async () => {
    const patches = sequence('patch', collabUrl, [status(502), ok(collab)]);
    const deletes = sequence('delete', collabUrl, [
      status(500),
      () => new HttpResponse(null, { status: 204 }),
    ]);
    await client().collabs.update(ORG_ID, COLLAB_ID, { name: 'x' });
    await client().collabs.delete(ORG_ID, COLLAB_ID);
    expect([patches.length, deletes.length]).toEqual([2, 2]);
  });

  test.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [422, ValidationError],
  ])('%i is never retried', async (code, ErrorClass) => {
    const times = sequence('get', orgUrl, [status(code)]);
    await expect(client().organizations.retrieve(ORG_ID)).rejects.toBeInstanceOf(ErrorClass);
    expect(times).toHaveLength(1);
  });

  test('a POST answered 5xx is retried like a PATCH: its Idempotency-Key makes the retry safe (§6)', async () => {
    const times = sequence('post', collabsUrl, [status(500), ok(collab, 201)]);
    await expect(client().collabs.create(ORG_ID)).resolves.toMatchObject({ id: COLLAB_ID });
    const unavailable = sequence('post', collabsUrl, [status(503, { 'Retry-After': '0' }), ok(collab, 201)]);
    await expect(client().collabs.create(ORG_ID)).resolves.toMatchObject({ id: COLLAB_ID });
    expect([times.length, unavailable.length]).toEqual([2, 2]);
  });
});

describe('a DELETE that took effect', () => {
  test('a 404 on a retried DELETE is success: the first attempt deleted it', async () => {
    const times = sequence('delete', collabUrl, [status(503), status(404)]);
    await expect(client().collabs.delete(ORG_ID, COLLAB_ID)).resolves.toBeUndefined();
    expect(times).toHaveLength(2);
  });

  test('a 404 on the first attempt is a NotFoundError', async () => {
    sequence('delete', collabUrl, [status(404)]);
    await expect(client().collabs.delete(ORG_ID, COLLAB_ID)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('backoff', () => {
  test('waits random(0, min(8 s, 0.5 s × 2^attempt)), drawing from the injected random', async () => {
    const draws = [0.3, 0.9, 0.6];
    const random = vi.fn(() => draws[random.mock.calls.length - 1] as number);
    const times = sequence('get', orgUrl, [status(500), status(500), status(500), ok(organization)]);
    const result = await withFakeTimers(() => client({ random }).organizations.retrieve(ORG_ID));
    expect(result.status).toBe('fulfilled');
    expectWaits(times, [0.3 * 500, 0.9 * 1000, 0.6 * 2000]);
    expect(random).toHaveBeenCalledTimes(3);
  });

  test('the bound doubles per retry and stops at 8 s', async () => {
    const times = sequence('get', orgUrl, [status(500)]);
    await withFakeTimers(() => client({ random: () => 1, maxRetries: 6 }).organizations.retrieve(ORG_ID));
    expectWaits(times, [500, 1000, 2000, 4000, 8000, 8000]);
  });

  test('past the cap the draw is still uniform in [0, 8 s]: a quarter draw waits 2 s, not 4 s', async () => {
    const times = sequence('get', orgUrl, [status(500)]);
    await withFakeTimers(() => client({ random: () => 0.25, maxRetries: 6 }).organizations.retrieve(ORG_ID));
    expectWaits(times, [125, 250, 500, 1000, 2000, 2000]);
  });

  test('with Math.random every wait stays within its bound', async () => {
    const times = sequence('get', orgUrl, [status(500)]);
    await withFakeTimers(() => client({ random: undefined, maxRetries: 5 }).organizations.retrieve(ORG_ID));
    const bounds = [500, 1000, 2000, 4000, 8000];
    gaps(times).forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(0);
      expect(gap).toBeLessThanOrEqual((bounds[i] as number) + 1); // + the fake clock’s tick, as in expectWaits
    });
  });

  test('Retry-After is honoured instead of the backoff', async () => {
    const times = sequence('get', orgUrl, [status(503, { 'Retry-After': '2' }), ok(organization)]);
    await withFakeTimers(() => client().organizations.retrieve(ORG_ID));
    expectWaits(times, [2000]);
  });

  test('Retry-After is capped at 60 s', async () => {
    const times = sequence('get', orgUrl, [status(503, { 'Retry-After': '3600' }), ok(organization)]);
    await withFakeTimers(() => client().organizations.retrieve(ORG_ID));
    expectWaits(times, [60_000]);
  });

  test('aborting during a backoff wait stops the retries', async () => {
    const times = sequence('get', orgUrl, [status(503, { 'Retry-After': '30' })]);
    const controller = new AbortController();
    vi.useFakeTimers();
    const call = client().organizations.retrieve(ORG_ID, { signal: controller.signal });
    const rejected = expect(call).rejects.toMatchObject({ name: 'AbortError' });
    await vi.advanceTimersByTimeAsync(1000);
    controller.abort();
    await rejected;
    expect(times).toHaveLength(1);
  });
});

describe('timeouts', () => {
  test('a GET with no answer within `timeout` is retried, then APIConnectionTimeoutError', async () => {
    const times: number[] = [];
    server.use(
      http.get(orgUrl, async () => {
        times.push(Date.now());
        await delay('infinite');
      }),
    );
    const result = await withFakeTimers(() =>
      client({ timeout: 1000, maxRetries: 1 }).organizations.retrieve(ORG_ID),
    );
    expect(result).toMatchObject({ status: 'rejected', reason: expect.any(APIConnectionTimeoutError) });
    expect(times).toHaveLength(2);
    // The message says how many attempts waited that long.
    expect((result as PromiseRejectedResult).reason.message).toBe(
      `No response within 1000 ms (2 attempts): GET ${orgUrl}`,
    );
  });

  test('a POST that timed out is retried, with the same Idempotency-Key', async () => {
    const keys: (string | null)[] = [];
    server.use(
      http.post(collabsUrl, async ({ request }) => {
        keys.push(request.headers.get('idempotency-key'));
        await delay('infinite');
      }),
    );
    const result = await withFakeTimers(() =>
      client({ timeout: 1000, maxRetries: 1 }).collabs.create(ORG_ID),
    );
    expect(result).toMatchObject({ status: 'rejected', reason: expect.any(APIConnectionTimeoutError) });
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });
});

describe("timeouts: the body and the caller's signal (found by review)", () => {
  test('a body that stops arriving is a timeout too, not a call that never settles', async () => {
    server.use(
      http.get(
        orgUrl,
        () =>
          new HttpResponse(
            new ReadableStream({
              start(controller) {
                controller.enqueue(new TextEncoder().encode('{"id":'));
              },
            }),
            { headers: { 'content-type': 'application/json' } },
          ),
      ),
    );
    const result = await withFakeTimers(() =>
      client({ timeout: 1000, maxRetries: 0 }).organizations.retrieve(ORG_ID),
    );
    expect(result).toMatchObject({ status: 'rejected', reason: expect.any(APIConnectionTimeoutError) });
    // One attempt: nothing more to say.
    expect((result as PromiseRejectedResult).reason.message).toBe(
      `No response within 1000 ms: GET ${orgUrl}`,
    );
  });

  test("the caller's signal aborting with a TimeoutError (AbortSignal.timeout) rejects with that reason", async () => {
    const controller = new AbortController();
    const reason = new DOMException('The operation timed out.', 'TimeoutError');
    // The signal aborts once the request has arrived and is waiting for its answer.
    server.use(
      http.get(orgUrl, async () => {
        controller.abort(reason);
        await delay('infinite');
      }),
    );
    const pending = client().organizations.retrieve(ORG_ID, { signal: controller.signal });
    await expect(pending).rejects.toBe(reason);
  });

  test("per-call timeout and maxRetries are checked as the client's are: RangeError", async () => {
    for (const options of [
      { timeout: 0 },
      { timeout: -5 },
      { timeout: 1.5 },
      { timeout: 2 ** 31 },
      { maxRetries: -1 },
    ])
      await expect(client().organizations.retrieve(ORG_ID, options), JSON.stringify(options)).rejects.toThrow(
        RangeError,
      );
    expect(() => client({ timeout: 1e10 })).toThrow(RangeError);
  });
});

describe('transport errors (real sockets)', () => {
  /** A TCP server on loopback; `onData` decides what happens once a request arrives. */
  async function tcpServer(onData: (socket: net.Socket) => void) {
    const connections: net.Socket[] = [];
    const tcp = net.createServer((socket) => {
      connections.push(socket);
      socket.once('data', () => onData(socket));
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    const { port } = tcp.address() as net.AddressInfo;
    return {
      baseUrl: `http://127.0.0.1:${port}`,
      connections,
      close: () => new Promise<void>((resolve) => tcp.close(() => resolve())),
    };
  }

  /** A loopback port nobody listens on: connecting is refused. */
  async function closedPort(): Promise<string> {
    const tcp = await tcpServer(() => {});
    await tcp.close();
    return tcp.baseUrl;
  }

  function countingFetch() {
    const calls = { count: 0 };
    const fetch: Fetch = (input, init) => {
      calls.count++;
      return globalThis.fetch(input, init);
    };
    return { calls, fetch };
  }

  test('the fetch option is called as a function, without a `this` (a browser fetch needs none)', async () => {
    const receivers: unknown[] = [];
    const fetch = function (this: unknown, input: string | URL | Request, init?: RequestInit) {
      receivers.push(this);
      return globalThis.fetch(input, init);
    };
    const sdk = client({ baseUrl: await closedPort(), fetch, maxRetries: 1 });
    await expect(sdk.organizations.retrieve(ORG_ID)).rejects.toBeInstanceOf(APIConnectionError);
    expect(receivers).toEqual([undefined, undefined]);
  });

  test('a POST whose connection was refused is retried: nothing was sent', async () => {
    const { calls, fetch } = countingFetch();
    const sdk = client({ baseUrl: await closedPort(), fetch });
    const error = await sdk.collabs.create(ORG_ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(calls.count).toBe(4);
    expect(((error as Error).cause as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
  });

  test('a refused connection says why: the system error code, on the error and in its message', async () => {
    const baseUrl = await closedPort();
    const error = await client({ baseUrl, maxRetries: 0 })
      .organizations.retrieve(ORG_ID)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as APIConnectionError).code).toBe('ECONNREFUSED');
    expect((error as Error).message).toBe(
      `Connection failed: GET ${baseUrl}/organizations/${ORG_ID}.json (connect ECONNREFUSED ${new URL(baseUrl).host})`,
    );
    // The runtime's error stays the cause, as before.
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });

  test('a connection that failed on every attempt says how many were made', async () => {
    const baseUrl = await closedPort();
    const error = await client({ baseUrl })
      .organizations.retrieve(ORG_ID)
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      `Connection failed (4 attempts): GET ${baseUrl}/organizations/${ORG_ID}.json (connect ECONNREFUSED ${new URL(baseUrl).host})`,
    );
  });

  describe('in a web page (a location of its own)', () => {
    // What a browser's fetch rejects with when the API is down or refuses the page's origin: a
    // TypeError with no cause and no code (Chromium's words).
    const browserFetch = () => Promise.reject(new TypeError('Failed to fetch'));
    afterEach(() => vi.unstubAllGlobals());

    test('a failure the browser gives no reason for, on another origin, names CORS as a cause', async () => {
      vi.stubGlobal('location', new URL('http://127.0.0.1:4173/app'));
      const error = await client({ fetch: browserFetch, maxRetries: 0 })
        .organizations.retrieve(ORG_ID)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIConnectionError);
      expect((error as Error).message).toBe(
        `Connection failed: GET ${BASE}/organizations/${ORG_ID}.json (the browser gives no reason: the API is down or unreachable, or it does not allow requests from this page's origin, http://127.0.0.1:4173 (CORS); the browser's console says which)`,
      );
    });

    test('on the same origin (behind a proxy of the page), it does not', async () => {
      vi.stubGlobal('location', new URL(`${BASE}/app`));
      const error = await client({ fetch: browserFetch, maxRetries: 0 })
        .organizations.retrieve(ORG_ID)
        .catch((e: unknown) => e);
      expect((error as Error).message).toBe(`Connection failed: GET ${BASE}/organizations/${ORG_ID}.json`);
    });
  });

  test('a POST whose connection was reset after sending is retried (its key makes it safe)', async () => {
    const tcp = await tcpServer((socket) => socket.destroy());
    const sdk = client({ baseUrl: tcp.baseUrl });
    await expect(sdk.collabs.create(ORG_ID)).rejects.toBeInstanceOf(APIConnectionError);
    expect(tcp.connections).toHaveLength(4);
    await tcp.close();
  });

  test('a POST whose connection got a TCP reset after sending is retried (its key makes it safe)', async () => {
    const tcp = await tcpServer((socket) => socket.resetAndDestroy());
    const sdk = client({ baseUrl: tcp.baseUrl });
    await expect(sdk.collabs.create(ORG_ID)).rejects.toBeInstanceOf(APIConnectionError);
    expect(tcp.connections).toHaveLength(4);
    await tcp.close();
  });

  test('a GET whose connection was reset is retried', async () => {
    const tcp = await tcpServer((socket) => socket.destroy());
    const sdk = client({ baseUrl: tcp.baseUrl });
    await expect(sdk.organizations.retrieve(ORG_ID)).rejects.toBeInstanceOf(APIConnectionError);
    expect(tcp.connections).toHaveLength(4);
    await tcp.close();
  });

  test('a body that stops arriving is timed out and its connection closed, not left open', async () => {
    const tcp = await tcpServer((socket) =>
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"id":'),
    );
    const sdk = client({ baseUrl: tcp.baseUrl, timeout: 50, maxRetries: 0 });
    await expect(sdk.organizations.retrieve(ORG_ID)).rejects.toBeInstanceOf(APIConnectionTimeoutError);
    const [socket] = tcp.connections;
    // The client let go of the stalled connection: the server sees it end.
    if (!socket?.closed) await new Promise((resolve) => socket?.once('close', resolve));
    expect(socket?.closed).toBe(true);
    await tcp.close();
  });

  test('failedBeforeSending reads undici’s error codes, also inside an AggregateError', () => {
    const networkError = (cause: unknown) => {
      const error = new Error('Request failed due to a network error', {
        cause: new TypeError('fetch failed', { cause }),
      });
      error.name = 'NetworkError';
      Object.defineProperty(error, 'isKyError', { value: true });
      return error;
    };
    const sys = (code: string) => Object.assign(new Error(code), { code });
    expect(failedBeforeSending(networkError(sys('ENOTFOUND')))).toBe(true);
    expect(
      failedBeforeSending(networkError(new AggregateError([sys('ECONNREFUSED'), sys('ENETUNREACH')]))),
    ).toBe(true);
    expect(failedBeforeSending(networkError(sys('ECONNRESET')))).toBe(false);
    expect(failedBeforeSending(networkError(sys('UND_ERR_SOCKET')))).toBe(false);
    expect(failedBeforeSending(networkError(undefined))).toBe(false);
    expect(failedBeforeSending(sys('ECONNREFUSED'))).toBe(false);
  });
});
