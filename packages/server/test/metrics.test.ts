/**
 * `GET /metrics`: Prometheus text with requests by route template, latency histograms, 503s by
 * cause, database connections and event-loop delay; optionally behind a Bearer token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { useTestServer } from './harness.js';
import { sample } from './metrics-text.js';

describe('GET /metrics', () => {
  let chaosRoll = 0.99;
  const server = useTestServer({ chaos503Rate: 0.5 }, { random: () => chaosRoll });
  const scrape = async () => {
    const res = await server.get('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.body;
  };

  it('counts requests by method, route template and status, with a latency histogram', async () => {
    const { token } = await server.createUser();
    const before = await scrape();
    const series = { method: 'GET', route: '/organizations/:id', status_code: '404' };
    const count = (text: string) => sample(text, 'http_requests_total', series) ?? 0;
    await server.get('/organizations/nope1.json', { token });
    await server.get('/organizations/nope2.json', { token });
    await server.get('/no/such/thing', { token });
    const after = await scrape();
    expect(count(after) - count(before)).toBe(2);
    expect(after).not.toContain('nope1');
    expect(
      sample(after, 'http_requests_total', { route: '(unmatched)', status_code: '404' }),
    ).toBeGreaterThan(0);
    expect(sample(after, 'http_request_duration_seconds_count', series)).toBe(count(after));
    expect(sample(after, 'http_request_duration_seconds_bucket', { ...series, le: '+Inf' })).toBe(
      count(after),
    );
    expect(sample(after, 'http_request_duration_seconds_bucket', { ...series, le: '10' })).toBe(count(after));
  });

  it('counts chaos 503s by cause', async () => {
    const { token } = await server.createUser();
    const before = sample(await scrape(), 'http_unavailable_responses_total', { cause: 'chaos' }) ?? 0;
    chaosRoll = 0;
    const res = await server.get('/organizations.json', { token });
    chaosRoll = 0.99;
    expect(res.statusCode).toBe(503);
    const after = await scrape();
    expect(sample(after, 'http_unavailable_responses_total', { cause: 'chaos' })).toBe(before + 1);
    expect(sample(after, 'http_unavailable_responses_total', { cause: 'overload' })).toBe(0);
  });

  it('reports the database connections and the event-loop delay', async () => {
    const text = await scrape();
    const max = sample(text, 'db_pool_connections_max');
    expect(max).toBe(process.env.TEST_DATABASE_URL ? 10 : 1);
    for (const name of ['db_pool_connections_in_use', 'db_pool_connections_idle', 'db_pool_waiting']) {
      expect(sample(text, name)).toBeGreaterThanOrEqual(0);
      expect(sample(text, name)).toBeLessThanOrEqual(max as number);
    }
    expect(sample(text, 'db_pool_waiting')).toBe(0);
    expect(sample(text, 'nodejs_eventloop_delay_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('is not part of the OpenAPI document', async () => {
    const res = await server.get('/openapi.json');
    expect(Object.keys(res.json().paths)).not.toContain('/metrics');
  });
});

describe('503s by cause: overload and the request timeout', () => {
  const server = useTestServer();
  let app: Awaited<ReturnType<typeof buildApp>>;
  let entered!: () => void;
  const slowStarted = new Promise<void>((resolve) => {
    entered = resolve;
  });

  beforeAll(async () => {
    app = await buildApp({
      config: server.config,
      orm: server.orm,
      logger: false,
      overload: { maxEventLoopDelay: 0, maxConcurrentRequests: 1 },
      requestTimeout: 300,
    });
    // A handler that never finishes: it holds the only slot until the request timeout answers.
    app.get('/slow', () => {
      entered();
      return new Promise(() => {});
    });
    await app.ready();
  });
  afterAll(() => app.close());

  it('counts a request shed under load as overload and one that ran too long as timeout', async () => {
    const slow = app.inject({ url: '/slow' });
    await slowStarted;
    // (Not /health: the probes take no slot of the cap.)
    const shed = await app.inject({ url: '/openapi.json' });
    expect(shed.statusCode).toBe(503);
    expect((await slow).statusCode).toBe(503);
    const text = (await app.inject({ url: '/metrics' })).body;
    expect(sample(text, 'http_unavailable_responses_total', { cause: 'overload' })).toBe(1);
    expect(sample(text, 'http_unavailable_responses_total', { cause: 'timeout' })).toBe(1);
    expect(sample(text, 'http_requests_total', { route: '/slow', status_code: '503' })).toBe(1);
  });
});

describe('503s by cause: the database', () => {
  const server = useTestServer();

  it('counts answers given while the database is unreachable as database', async () => {
    const { token } = await server.createUser();
    await server.stopDatabase();
    expect((await server.get('/organizations.json', { token })).statusCode).toBe(503);
    expect((await server.get('/health')).statusCode).toBe(503);
    const text = (await server.get('/metrics')).body;
    expect(sample(text, 'http_unavailable_responses_total', { cause: 'database' })).toBe(2);
  });
});

describe('with MARKETPLACE_METRICS_TOKEN set', () => {
  const TOKEN = 'metrics-token-0123456789';
  const server = useTestServer({ metricsToken: TOKEN });

  it('answers a scrape without the token, or with another, with the API 401', async () => {
    for (const token of [undefined, 'metrics-token-wrong-012345']) {
      const res = await server.get('/metrics', { token });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBeDefined();
      expect(res.body).not.toContain('http_requests_total');
    }
  });

  it('answers a scrape with the token', async () => {
    const res = await server.get('/metrics', { token: TOKEN });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('# TYPE http_requests_total counter');
  });

  it('is read from the environment (at least 16 characters)', () => {
    expect(loadConfig({ MARKETPLACE_METRICS_TOKEN: TOKEN }).metricsToken).toBe(TOKEN);
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(() => loadConfig({ MARKETPLACE_METRICS_TOKEN: 'short' })).toThrow('MARKETPLACE_METRICS_TOKEN');
  });
});

describe('who may read /metrics', () => {
  const server = useTestServer({ corsOrigins: ['https://app.example'] });
  const scrapeFrom = (remoteAddress: string, headers: Record<string, string> = {}, app = server.app) =>
    app.inject({ url: '/metrics', remoteAddress, headers });

  it('without a token, answers loopback clients only', async () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) {
      const res = await scrapeFrom(address);
      expect(res.statusCode, address).toBe(200);
      expect(res.body).toContain('# TYPE http_requests_total counter');
    }
    for (const address of ['203.0.113.7', '10.0.0.2', '::ffff:10.0.0.2', '2001:db8::1', '128.0.0.1']) {
      const res = await scrapeFrom(address);
      expect(res.statusCode, address).toBe(404);
      expect(res.json()).toEqual({ error: 'Not found' });
    }
  });

  it('answers any client with MARKETPLACE_METRICS_PUBLIC=1, and any client with the token', async () => {
    expect(loadConfig({ MARKETPLACE_METRICS_PUBLIC: '1' }).metricsPublic).toBe(true);
    expect(loadConfig({}).metricsPublic).toBe(false);
    const TOKEN = 'metrics-token-0123456789';
    for (const [config, headers] of [
      [{ ...server.config, metricsPublic: true }, {}],
      [{ ...server.config, metricsToken: TOKEN }, { authorization: `Bearer ${TOKEN}` }],
    ] as const) {
      const app = await buildApp({ config, orm: server.orm, logger: false });
      try {
        const res = await scrapeFrom('203.0.113.7', headers, app);
        expect(res.statusCode).toBe(200);
        expect(res.body).toContain('# TYPE http_requests_total counter');
      } finally {
        await app.close();
      }
    }
  });

  it('is never readable cross-origin: no CORS headers, a foreign Origin is 403', async () => {
    const api = await server.get('/organizations.json', {
      token: null,
      headers: { origin: 'https://app.example' },
    });
    expect(api.headers['access-control-allow-origin']).toBe('https://app.example');

    const foreign = await scrapeFrom('127.0.0.1', { origin: 'https://app.example' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.body).not.toContain('http_requests_total');
    const own = await scrapeFrom('127.0.0.1', { origin: 'http://marketplace.test' });
    expect(own.statusCode).toBe(200);
    const preflight = await server.app.inject({
      method: 'OPTIONS',
      url: '/metrics',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(preflight.statusCode).toBe(403);
    for (const res of [foreign, own, preflight])
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });
});
