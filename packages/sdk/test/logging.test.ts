import type { UserId } from '@app/schemas';
import { HttpResponse, http } from 'msw';
import { expect, test, vi } from 'vitest';
import type { LogDetails, Logger } from '../src/index.js';
import { BASE, client, mockServer, ORG_ID, organization, TOKEN } from './fixtures.js';

const server = mockServer();
const orgUrl = `${BASE}/organizations/${ORG_ID}.json`;

function recordingLogger() {
  const entries: { level: 'debug' | 'warn'; message: string; details: LogDetails }[] = [];
  const logger: Logger = {
    debug: (message, details) => entries.push({ level: 'debug', message, details }),
    warn: (message, details) => entries.push({ level: 'warn', message, details }),
  };
  return { entries, logger };
}

test('logs each attempt’s request and response, with the Authorization header redacted', async () => {
  let calls = 0;
  server.use(
    http.get(orgUrl, () =>
      ++calls === 1
        ? HttpResponse.json({ error: 'Service temporarily unavailable' }, { status: 503 })
        : HttpResponse.json(organization),
    ),
  );
  const { entries, logger } = recordingLogger();
  await client({ logger }).organizations.retrieve(ORG_ID);

  expect(entries.map((e) => [e.level, e.message, e.details.attempt, e.details.status])).toEqual([
    ['debug', 'marketplace request', 1, undefined],
    ['warn', 'marketplace response', 1, 503],
    ['debug', 'marketplace request', 2, undefined],
    ['debug', 'marketplace response', 2, 200],
  ]);
  const request = entries[0]?.details;
  expect(request).toMatchObject({ method: 'GET', url: orgUrl });
  expect(request?.headers).toMatchObject({ authorization: '[redacted]', accept: 'application/json' });
  expect(entries[3]?.details.durationMs).toBeGreaterThanOrEqual(0);
  expect(JSON.stringify(entries)).not.toContain(TOKEN);
});

test('logs a transport failure as a warning', async () => {
  server.use(http.get(orgUrl, () => HttpResponse.error()));
  const { entries, logger } = recordingLogger();
  await expect(client({ logger, maxRetries: 0 }).organizations.retrieve(ORG_ID)).rejects.toThrow();
  expect(entries.map((e) => [e.level, e.message])).toEqual([
    ['debug', 'marketplace request'],
    ['warn', 'marketplace request failed'],
  ]);
  expect(entries[1]?.details.error).toContain('fetch failed');
});

test('the test helpers key is redacted as well', async () => {
  server.use(
    http.post(`${BASE}/test_helpers/users/:id/push_subscriptions.json`, () =>
      HttpResponse.json({ id: 'p1' }, { status: 201 }),
    ),
  );
  const { entries, logger } = recordingLogger();
  const key = 'helpers-key-0123456789';
  await client({ logger, testHelpersKey: key }).testHelpers.createPushSubscription('u1' as UserId);
  expect(JSON.stringify(entries)).not.toContain(key);
});

test('console fits the Logger interface', async () => {
  server.use(http.get(orgUrl, () => HttpResponse.json(organization)));
  const debug = vi.spyOn(console, 'debug').mockImplementation(() => {});
  await client({ logger: console }).organizations.retrieve(ORG_ID);
  expect(debug).toHaveBeenCalledTimes(2);
  debug.mockRestore();
});
