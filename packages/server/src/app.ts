import { NOT_FOUND_MESSAGE } from '@app/schemas';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import type { Orm } from './db/database.js';
import { databaseProbe } from './db/probe.js';
import { logFormatFor, loggerOptions, RequestLog } from './http/logging.js';
import { registerReferencePage } from './http/reference-page.js';
import { createUploadStore } from './modules/uploads/stores.js';
import { registerUploadRoutes } from './modules/uploads/uploads.routes.js';
import { Callers } from './pipeline/callers.js';
import { stripJsonSuffix } from './pipeline/json-selection.js';
import { withMultipart, withoutMultipart } from './pipeline/multipart.js';
import { PageCache } from './pipeline/page-cache.js';
import { registerRoute, takesFiles } from './pipeline/routes.js';
import { admissionOf, DEFAULT_OVERLOAD, type OverloadOptions } from './plugins/availability.js';
import { registerEntityManager } from './plugins/entity-manager.js';
import { installErrorHandler } from './plugins/error-handler.js';
import { registerCors } from './plugins/external/cors.js';
import { registerHealthRoutes } from './plugins/health.js';
import { registerMetrics } from './plugins/metrics.js';
import { registerOpenapi } from './plugins/openapi.js';
import { requestIdOptions } from './plugins/request-id.js';
import { receiveTimeoutOptions, registerRequestIntake } from './plugins/request-intake.js';
import { registerRequestLifecycle } from './plugins/request-lifecycle.js';
import './pipeline/request.js';
import { publicRoutes, testHelperRoutes } from './routes.js';
import type { Tracing } from './tracing.js';

export interface AppOptions {
  config: Config;
  orm: Orm;
  /**
   * Fastify/pino logger settings; defaults to `config.logLevel` and `config.logFormat` (for
   * stdout), with the token redacted.
   */
  logger?: FastifyServerOptions['logger'];
  /** Random source of the chaos 503s (tests make it deterministic). */
  random?: () => number;
  /** Overload protection: event-loop delay and requests in progress past which requests get a 503. */
  overload?: OverloadOptions;
  /** OpenTelemetry tracing (`startTracing`), when on: its Fastify plugin is registered first. */
  tracing?: Pick<Tracing, 'fastifyPlugin'>;
  /** Milliseconds a request may take before it is answered `503` (default {@link REQUEST_TIMEOUT_MS}). */
  requestTimeout?: number;
}

/**
 * Every request is answered within this time of its arrival: one still running then (a database
 * that accepts connections but does not answer, a lock held elsewhere), with or without a body,
 * gets `503` with `Retry-After: 1`, well before a client's own timeout (the SDK's is 30 s), so it
 * retries instead of hanging (plugins/request-lifecycle.ts, `deadlines`). A body still
 * arriving then is the receive timeout's (`408`).
 */
export const REQUEST_TIMEOUT_MS = 10_000;

/**
 * Fastify's `trustProxy` for `MARKETPLACE_TRUST_PROXY`: the proxies' addresses and ranges, or the
 * first `hops` hops (the form Fastify gives a number, typed as the function it is).
 */
function trustProxyOf(
  trust: readonly string[] | number,
): string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : [...trust];
}

/**
 * Builds the application. It does not listen: see `server.ts` for the process entry point. When a
 * step fails (an `s3://` store without its optional package), what the steps before it opened is
 * closed before the error is passed on: the database check's connection of its own kept a
 * `serve` on PostgreSQL alive after its one line, neither listening nor exiting.
 */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = createApp(options);
  try {
    await registerAll(app, options);
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

function createApp(options: AppOptions): FastifyInstance {
  const { config } = options;
  return Fastify({
    logger: options.logger ?? loggerOptions(config.logLevel, logFormatFor(config.logFormat, process.stdout)),
    // One line per request, none at `info` for the probes (instead of Fastify's two).
    logController: new RequestLog(),
    rewriteUrl: (raw) => stripJsonSuffix(raw),
    bodyLimit: 1024 * 1024,
    // An over-long id is just an unknown id (404), not a 414.
    routerOptions: { maxParamLength: 8 * 1024 },
    // Requests the router cannot take apart get the documented error bodies, not Fastify's.
    frameworkErrors: (error, _request, res) => {
      const reply = res as FastifyReply;
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
        return reply.code(404).send({ error: NOT_FOUND_MESSAGE });
      if (error.code === 'FST_ERR_BAD_URL')
        return reply.code(400).send({ error: 'The request URL is malformed' });
      return reply.code(500).send({ error: 'Internal server error' });
    },
    // Requests that arrive while closing are answered by the draining plugin, in the documented shape.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Behind the proxies it names, `request.ip` is the client's (X-Forwarded-For): its share, its log line.
    ...(config.trustProxy !== undefined && {
      trustProxy: trustProxyOf(config.trustProxy),
    }),
    ...receiveTimeoutOptions(config.receiveTimeoutMs),
    ...requestIdOptions,
  });
}

async function registerAll(app: FastifyInstance, options: AppOptions): Promise<void> {
  const { config, orm } = options;
  // Whose tokens authenticated: the per-client share of the cap counts a request against its user.
  const callers = new Callers();
  // Before any hook or route: @fastify/otel wraps the hooks and routes added after it.
  if (options.tracing) await app.register(options.tracing.fastifyPlugin);
  await registerCors(app, config.corsOrigins);
  installErrorHandler(app);
  registerRequestIntake(app, {
    maxConnections: config.maxConnections,
    ...(config.trustProxy !== undefined && { trustProxy: config.trustProxy }),
  });
  // Every app-wide step of a request, one hook per phase (after CORS: every answer carries its
  // headers; before the routes: the body routes get their `preHandler`).
  await registerRequestLifecycle(app, {
    requestId: true,
    draining: true,
    intake: { bodyBudgetBytes: config.bodyBudgetBytes },
    deadlines: { answerMs: options.requestTimeout ?? REQUEST_TIMEOUT_MS, sendMs: config.sendTimeoutMs },
    admission: admissionOf(
      { maxConcurrentPerClient: config.maxInProgressPerClient, ...(options.overload ?? DEFAULT_OVERLOAD) },
      config.databaseCheckIntervalMs > 0
        ? { probe: databaseProbe(orm), interval: config.databaseCheckIntervalMs }
        : undefined,
      (request) => callers.clientOf(request),
    ),
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: NOT_FOUND_MESSAGE }));

  registerEntityManager(app, orm, { named: config.databasePooler !== 'transaction' });
  app.decorateRequest('routeInput');
  app.decorateRequest('caller');
  app.decorateRequest('tokenDigest');
  app.decorateRequest('uploads');
  app.decorateRequest('uploadErrors');
  app.decorateRequest('unavailableCause');

  await registerMetrics(app, { orm, config });
  await registerOpenapi(app, config);

  const random = options.random ?? Math.random;
  const uploads = await createUploadStore(config.storage, app.log);
  const pages = new PageCache(config.pageCacheBytes);
  await app.register(async (api) => {
    api.setValidatorCompiler(validatorCompiler);
    // Answers are typed against the table's response schemas at compile time (`ResultOf`) and
    // checked against the published document by the contract run; they are not parsed again.
    api.setSerializerCompiler(() => (data) => JSON.stringify(data));
    const routes = config.testHelpersKey ? [...publicRoutes, ...testHelperRoutes] : publicRoutes;
    const routeOptions = { config, random, uploads, pages, callers };
    // The routes that take files read multipart forms; the others only mark one (pipeline/multipart.ts).
    await withMultipart(api, config, (forms) => {
      for (const route of routes.filter(takesFiles)) registerRoute(forms, route, routeOptions);
    });
    await withoutMultipart(api, (plain) => {
      for (const route of routes.filter((route) => !takesFiles(route)))
        registerRoute(plain, route, routeOptions);
    });
  });

  registerUploadRoutes(app, uploads);
  await registerReferencePage(app);
  registerHealthRoutes(app, orm);
}
