import { NOT_FOUND_MESSAGE } from '@app/schemas';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import type { Orm } from './db/database.js';
import { logFormatFor, loggerOptions } from './http/logging.js';
import { openapiOptions } from './http/openapi.js';
import { registerReferencePage } from './http/reference-page.js';
import { registerRoute } from './http/routes.js';
import { createUploadStore } from './modules/uploads/stores.js';
import { registerUploadRoutes } from './modules/uploads/uploads.routes.js';
import {
  isDatabaseUnavailable,
  type OverloadOptions,
  registerOverloadProtection,
} from './plugins/availability.js';
import { registerCors } from './plugins/cors.js';
import { registerDraining } from './plugins/draining.js';
import { registerEntityManager } from './plugins/entity-manager.js';
import { installErrorHandler } from './plugins/error-handler.js';
import { stripJsonSuffix } from './plugins/json-selection.js';
import { registerMetrics } from './plugins/metrics.js';
import { registerRequestId, requestIdOf } from './plugins/request-id.js';
import { receiveTimeoutOptions, registerRequestIntake } from './plugins/request-intake.js';
import './http/request.js';
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
 * Every request is answered within this time: one still running then (a database that accepts
 * connections but does not answer, a lock held elsewhere) gets `503` with `Retry-After: 1`, well
 * before a client's own timeout (the SDK's is 30 s), so it retries instead of hanging.
 */
export const REQUEST_TIMEOUT_MS = 10_000;

/** Builds the application. It does not listen: see `server.ts` for the process entry point. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, orm } = options;
  const app = Fastify({
    logger: options.logger ?? loggerOptions(config.logLevel, logFormatFor(config.logFormat, process.stdout)),
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
    handlerTimeout: options.requestTimeout ?? REQUEST_TIMEOUT_MS,
    forceCloseConnections: 'idle',
    ...receiveTimeoutOptions(config.receiveTimeoutMs),
    requestIdHeader: false,
    genReqId: requestIdOf,
  });

  // Before any hook or route: @fastify/otel wraps the hooks and routes added after it.
  if (options.tracing) await app.register(options.tracing.fastifyPlugin);
  registerRequestId(app);
  await registerCors(app, config.corsOrigins);
  registerDraining(app);
  installErrorHandler(app);
  registerRequestIntake(app);
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: NOT_FOUND_MESSAGE }));

  registerEntityManager(app, orm);
  app.decorateRequest('caller');
  app.decorateRequest('uploads');
  app.decorateRequest('unavailableCause');

  await registerOverloadProtection(app, options.overload);
  await registerMetrics(app, { orm, token: config.metricsToken });
  await app.register(swagger, openapiOptions(config));
  await app.register(multipart, { limits: { fileSize: config.maxUploadBytes } });

  const random = options.random ?? Math.random;
  const uploads = createUploadStore(config.storage, app.log);
  await app.register(async (api) => {
    api.setValidatorCompiler(validatorCompiler);
    // Answers are typed against the table's response schemas at compile time (`ResultOf`) and
    // checked against the published document by the contract run; they are not parsed again.
    api.setSerializerCompiler(() => (data) => JSON.stringify(data));
    const routes = config.testHelpersKey ? [...publicRoutes, ...testHelperRoutes] : publicRoutes;
    for (const route of routes) registerRoute(api, route, { config, random, uploads });
  });

  registerUploadRoutes(app, uploads);
  app.get('/openapi', { schema: { hide: true } }, async () => app.swagger());
  await registerReferencePage(app);
  app.get('/health', { schema: { hide: true } }, async (request, reply) => {
    try {
      await request.em.execute('select 1');
      return { status: 'ok' };
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      request.unavailableCause = 'database';
      return reply.code(503).header('retry-after', '1').send({ status: 'database unavailable' });
    }
  });
  /*
   * Readiness, for load balancers: the database answers and every migration this build knows is
   * applied (a replica of a new release waits for `migrate`). Once all are seen applied, only the
   * database is asked: migrations are not undone under a running server.
   */
  let migrated = false;
  app.get('/ready', { schema: { hide: true } }, async (request, reply) => {
    const notReady = (status: string, more: Record<string, unknown> = {}) =>
      reply
        .code(503)
        .header('retry-after', '1')
        .send({ status, ...more });
    try {
      if (migrated) await request.em.execute('select 1');
      else {
        const pending = (await orm.migrator.getPending()).map((m) => m.name);
        if (pending.length > 0) return notReady('migrations pending', { pending });
        migrated = true;
      }
      return { status: 'ready' };
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      return notReady('database unavailable');
    }
  });
  return app;
}
