import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { APIError, type UserId } from '../src/index.js';
import { BASE, COLLAB_ID, client, collab, mockServer, ORG_ID } from './fixtures.js';

const server = mockServer();
const collabsUrl = `${BASE}/organizations/${ORG_ID}/collabs.json`;
const collabUrl = `${BASE}/organizations/${ORG_ID}/collabs/${COLLAB_ID}.json`;
const submitUrl = `${BASE}/organizations/${ORG_ID}/collabs/${COLLAB_ID}/submit.json`;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

afterEach(() => {
  vi.useRealTimers();
});

/** Answers with `responses` in turn (the last repeats), recording each attempt's key and time. */
function recordPosts(url: string, responses: (() => Response)[]) {
  const attempts: { key: string | null; at: number }[] = [];
  server.use(
    http.post(url, ({ request }) => {
      attempts.push({ key: request.headers.get('idempotency-key'), at: Date.now() });
      return (responses[attempts.length - 1] ?? responses.at(-1))!();
    }),
  );
  return attempts;
}

const created = () => HttpResponse.json(collab, { status: 201 });
const failed = (code: number, headers?: Record<string, string>) => () =>
  HttpResponse.json({ error: 'x' }, { status: code, headers });
const inProgress = () =>
  HttpResponse.json(
    { error: 'A request with this Idempotency-Key is in progress' },
    { status: 409, headers: { 'Retry-After': '1' } },
  );

describe('Idempotency-Key', () => {
  test('every POST sends a random UUID v4, a new one per call', async () => {
    const attempts = recordPosts(collabsUrl, [created]);
    await client().collabs.create(ORG_ID);
    await client().collabs.create(ORG_ID);
    expect(attempts.map((a) => a.key)).toEqual([
      expect.stringMatching(UUID_V4),
      expect.stringMatching(UUID_V4),
    ]);
    expect(attempts[0]?.key).not.toBe(attempts[1]?.key);
  });

  test('a call sends the same key on every retry (5xx and 409 alike)', async () => {
    const attempts = recordPosts(collabsUrl, [failed(500), failed(503), inProgress, created]);
    vi.useFakeTimers();
    const call = client().collabs.create(ORG_ID);
    await vi.advanceTimersByTimeAsync(5_000);
    await expect(call).resolves.toMatchObject({ id: COLLAB_ID });
    expect(attempts).toHaveLength(4);
    expect(new Set(attempts.map((a) => a.key)).size).toBe(1);
  });

  test('a call may choose its key: { idempotencyKey }', async () => {
    const attempts = recordPosts(collabsUrl, [failed(502), created]);
    await client().collabs.create(ORG_ID, { name: 'x' }, undefined, { idempotencyKey: 'order-42' });
    expect(attempts.map((a) => a.key)).toEqual(['order-42', 'order-42']);
  });

  test('a transition sends one too', async () => {
    const attempts = recordPosts(submitUrl, [() => new HttpResponse(null, { status: 303 })]);
    server.use(http.get(collabUrl, () => HttpResponse.json(collab)));
    await client().collabs.submit(ORG_ID, COLLAB_ID, { idempotencyKey: 'submit-1' });
    expect(attempts.map((a) => a.key)).toEqual(['submit-1']);
  });

  test('a key that is not 1 to 255 printable ASCII characters is refused before sending', async () => {
    const attempts = recordPosts(collabsUrl, [created]);
    for (const idempotencyKey of ['', 'k'.repeat(256), 'clé', 'a\nb'])
      await expect(client().collabs.create(ORG_ID, {}, undefined, { idempotencyKey })).rejects.toThrow(
        TypeError,
      );
    expect(attempts).toHaveLength(0);
  });

  test('PATCH sends none', async () => {
    let key: string | null = 'unset';
    server.use(
      http.patch(collabUrl, ({ request }) => {
        key = request.headers.get('idempotency-key');
        return HttpResponse.json(collab);
      }),
    );
    await client().collabs.update(ORG_ID, COLLAB_ID, { name: 'x' });
    expect(key).toBeNull();
  });

  test('409 in progress is retried after its Retry-After (1 s), then answered', async () => {
    const attempts = recordPosts(collabsUrl, [inProgress, created]);
    vi.useFakeTimers();
    const call = client().collabs.create(ORG_ID);
    await vi.advanceTimersByTimeAsync(999);
    expect(attempts).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2);
    await expect(call).resolves.toMatchObject({ id: COLLAB_ID });
    expect(attempts).toHaveLength(2);
  });

  test('409 still in progress after the last retry is an APIError with status 409', async () => {
    const attempts = recordPosts(collabsUrl, [inProgress]);
    vi.useFakeTimers();
    const call = client({ maxRetries: 2 })
      .collabs.create(ORG_ID)
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10_000);
    const error = await call;
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ status: 409 });
    expect(attempts).toHaveLength(3);
  });

  test('test-helper POSTs (the server ignores keys there) send none and are not retried on 5xx', async () => {
    const attempts = recordPosts(`${BASE}/test_helpers/users/:id/push_subscriptions.json`, [failed(500)]);
    await expect(
      client({ testHelpersKey: 'k'.repeat(40) }).testHelpers.createPushSubscription('u1' as UserId),
    ).rejects.toBeInstanceOf(APIError);
    expect(attempts.map((a) => a.key)).toEqual([null]);
  });
});
