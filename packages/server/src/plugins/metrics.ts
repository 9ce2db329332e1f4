import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Config } from '../config.js';
import type { Orm } from '../db/database.js';
import { bearerMatches } from '../http/bearer.js';
import { forbidden, notFound, UNAVAILABLE_CAUSES, UnauthorizedError } from '../http/errors.js';

/** Label of requests no route matched (unknown paths): one series, not one per path sent. */
const UNMATCHED = '(unmatched)';

/** Seconds; from a cached show (~1 ms) to the request timeout (10 s). */
const DURATION_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Whether a peer address is this host's own (127.0.0.0/8, `::1`, or IPv4-mapped `::ffff:127.…`). */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === '::1' || /^(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/i.test(address);
}

/** What the metrics can read of the database's connections. */
interface PoolFigures {
  max: number;
  inUse: number;
  idle: number;
  waiting: number;
}

/** The `pg` pool's own counters (pg-pool), the shape MikroORM's PostgreSQL driver hands out. */
interface PgPool {
  options: { max?: number };
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

const isPgPool = (client: unknown): client is PgPool =>
  typeof (client as PgPool | null)?.waitingCount === 'number' &&
  typeof (client as PgPool).totalCount === 'number';

/**
 * How busy the database connections are. PostgreSQL: the pool's counters. PGlite is one
 * in-process connection whose queue is not observable: one connection, none reported in use or
 * waiting.
 */
async function poolFigures(orm: Orm): Promise<() => PoolFigures> {
  const client: unknown = await orm.em.getConnection().getNativeClient();
  if (!isPgPool(client)) return () => ({ max: 1, inUse: 0, idle: 0, waiting: 0 });
  return () => ({
    max: client.options.max ?? 10,
    inUse: client.totalCount - client.idleCount,
    idle: client.idleCount,
    waiting: client.waitingCount,
  });
}

/**
 * `GET /metrics` in Prometheus' text format (prom-client), one registry per app:
 * - `http_requests_total` and the `http_request_duration_seconds` histogram, by method, route
 *   template (`/organizations/:id`, never the id itself) and status;
 * - `http_unavailable_responses_total` by cause of the `503` (`UNAVAILABLE_CAUSES`);
 * - the database connections (`db_pool_*`);
 * - requests in progress (the slots of the cap), answers still being sent to their clients, and
 *   the bytes of request bodies held in memory (the body budget);
 * - connections open, those refused past `MARKETPLACE_MAX_CONNECTIONS` (or an address's share),
 *   and those closed at it to take another address's;
 * - the event-loop delay and utilisation the overload protection samples
 *   (plugins/pressure.ts, every second), so both read the same figures; resident memory.
 * Who may read it: with `MARKETPLACE_METRICS_TOKEN` set, a scrape needs `Authorization: Bearer
 * <token>` (else the API's `401`); without one, only a loopback client (else `404`, as if there
 * were no such path) unless `MARKETPLACE_METRICS_PUBLIC=1`. It is never readable from another
 * site's page: no CORS headers on it even when CORS origins are configured, and a request whose
 * `Origin` is not this server's own is `403`.
 */
export async function registerMetrics(
  app: FastifyInstance,
  options: { orm: Orm; config: Pick<Config, 'metricsToken' | 'metricsPublic' | 'baseUrl'> },
): Promise<Registry> {
  const { metricsToken: token, metricsPublic, baseUrl } = options.config;
  const ownOrigin = new URL(baseUrl).origin;
  const register = new Registry();
  const labelNames = ['method', 'route', 'status_code'] as const;
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request arriving to its answer being sent, by method, route template and status',
    labelNames,
    buckets: DURATION_BUCKETS,
    registers: [register],
  });
  // The histogram counts the requests already: the counter is read from it at each scrape, so a
  // request is recorded once (prom-client hashes the labels of every observation).
  new Counter({
    name: 'http_requests_total',
    help: 'Requests answered, by method, route template and status',
    labelNames,
    registers: [register],
    async collect() {
      this.reset();
      for (const { metricName, labels, value } of (await duration.get()).values)
        if (metricName === 'http_request_duration_seconds_count') this.inc(labels, value);
    },
  });
  const unavailable = new Counter({
    name: 'http_unavailable_responses_total',
    help: `Transient 503 answers, by cause (${UNAVAILABLE_CAUSES.join(', ')})`,
    labelNames: ['cause'] as const,
    registers: [register],
  });
  for (const cause of UNAVAILABLE_CAUSES) unavailable.inc({ cause }, 0);

  // Looked up at the first scrape: the app is also built without a database (the OpenAPI document).
  let pool: Promise<() => PoolFigures> | undefined;
  const poolGauge = (name: string, help: string, read: (figures: PoolFigures) => number) =>
    new Gauge({
      name,
      help,
      registers: [register],
      async collect() {
        pool ??= poolFigures(options.orm);
        try {
          this.set(read((await pool)()));
        } catch {
          pool = undefined; // the database cannot be reached yet: asked again at the next scrape
        }
      },
    });
  poolGauge('db_pool_connections_max', 'Database connections the pool may open', (f) => f.max);
  poolGauge(
    'db_pool_connections_in_use',
    'Database connections running a statement or transaction',
    (f) => f.inUse,
  );
  poolGauge('db_pool_connections_idle', 'Open database connections not in use', (f) => f.idle);
  poolGauge('db_pool_waiting', 'Statements waiting for a database connection', (f) => f.waiting);

  const sampled = (
    name: string,
    help: string,
    read: (usage: ReturnType<FastifyInstance['eventLoopSample']>) => number,
  ) =>
    new Gauge({
      name,
      help,
      registers: [register],
      collect() {
        this.set(read(app.eventLoopSample()));
      },
    });
  sampled(
    'nodejs_eventloop_delay_seconds',
    'Mean event-loop delay over the last sample interval (what the overload protection compares)',
    (u) => (Number.isFinite(u.eventLoopDelay) ? u.eventLoopDelay / 1000 : 0),
  );
  sampled(
    'nodejs_eventloop_utilization_ratio',
    'Event-loop utilisation over the last sample interval',
    (u) => u.eventLoopUtilized,
  );
  const current = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [register],
      collect() {
        this.set(read());
      },
    });
  current(
    'http_requests_in_progress',
    'Requests being worked on (the slots of the cap on requests in progress), this scrape included',
    () => app.requestsInProgress(),
  );
  current(
    'http_request_body_bytes_in_flight',
    'Bytes of request bodies held in memory, across requests (the body budget in use)',
    () => app.bodyBytesInFlight(),
  );
  current(
    'http_responses_sending',
    'Answers handed to their connection that the client has not taken whole yet',
    () => app.responsesSending(),
  );
  current(
    'http_connections_open',
    'Connections open (MARKETPLACE_MAX_CONNECTIONS at most)',
    () => app.connectionCounts().open,
  );
  new Counter({
    name: 'http_connections_refused_total',
    help: 'Connections closed as soon as accepted: the server held MARKETPLACE_MAX_CONNECTIONS already',
    registers: [register],
    collect() {
      this.reset();
      this.inc(app.connectionCounts().refused);
    },
  });
  new Counter({
    name: 'http_connections_evicted_total',
    help: "Connections closed at MARKETPLACE_MAX_CONNECTIONS to take another address's: the newest of the address holding the most",
    registers: [register],
    collect() {
      this.reset();
      this.inc(app.connectionCounts().evicted);
    },
  });
  new Gauge({
    name: 'process_resident_memory_bytes',
    help: 'Resident memory size',
    registers: [register],
    collect() {
      // It reads /proc/self/stat: at the open-file limit (EMFILE) the scrape keeps the last figure.
      try {
        this.set(process.memoryUsage.rss());
      } catch {}
    },
  });

  // A callback hook, not an async one: no promise and no microtask per request.
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      route: request.is404 ? UNMATCHED : (request.routeOptions.url ?? UNMATCHED),
      status_code: String(reply.statusCode),
    };
    duration.observe(labels, reply.elapsedTime / 1000);
    if (reply.statusCode === 503) unavailable.inc({ cause: request.unavailableCause ?? 'other' });
    done();
  });

  app.get('/metrics', { schema: { hide: true }, config: { cors: false } }, async (request, reply) => {
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== ownOrigin) throw forbidden();
    if (token) {
      if (!bearerMatches(request, token)) throw new UnauthorizedError();
      // The client's address: behind a proxy named by MARKETPLACE_TRUST_PROXY, the one it forwarded.
    } else if (!metricsPublic && !isLoopback(request.ip)) throw notFound();
    return reply.type(register.contentType).send(await register.metrics());
  });
  // A preflight for it is refused here, not answered by the CORS plugin's catch-all.
  app.options('/metrics', { schema: { hide: true }, config: { cors: false } }, async () => {
    throw forbidden();
  });
  return register;
}
