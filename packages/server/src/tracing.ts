import type { FastifyPluginCallback } from 'fastify';

/**
 * OpenTelemetry traces, on when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: a span per request named
 * after its route template (`GET /organizations/:id`, Fastify's official `@fastify/otel`), with
 * child spans for database statements: the `pg` instrumentation on PostgreSQL; on PGlite, which
 * has no driver to instrument, one span per statement MikroORM reports (see {@link Tracing}).
 * Spans go to the OTLP endpoint (`OTEL_EXPORTER_OTLP_PROTOCOL`, `OTEL_SERVICE_NAME` and the
 * other standard variables apply). Unset, nothing of OpenTelemetry is even loaded: this module
 * imports only types, and the packages are imported once tracing is asked for.
 *
 * Start it before the database driver is loaded (the `pg` instrumentation patches `pg` as it is
 * required): `cli.ts` does, before importing the rest of the server.
 */
export interface Tracing {
  /** `@fastify/otel`'s plugin; `buildApp` registers it before any hook or route. */
  fastifyPlugin: FastifyPluginCallback;
  /**
   * For PGlite: records a statement that just finished, having taken `tookMs`, as a child of the
   * active span (none outside a request: start-up migrations are not traced).
   */
  statementSpan(sql: string, detail: { tookMs?: number; failed?: boolean }): void;
  /** Sends the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

/**
 * The optional peer dependencies tracing loads (the server's package.json pins their versions):
 * those who do not trace do not install them.
 */
export const TRACING_PACKAGES = [
  '@opentelemetry/sdk-node',
  '@opentelemetry/api',
  '@opentelemetry/instrumentation-pg',
  '@fastify/otel',
];

/** Tracing was asked for, and its packages are not installed (one line, exit 1). */
export class TracingUnavailableError extends Error {}

/** Routes whose requests are not traced: scrapes and health checks, every few seconds. */
const UNTRACED_ROUTES = new Set(['/metrics', '/health']);

/**
 * A statement as recorded in a span: MikroORM inlines the values into the SQL it sends, so string
 * literals (emails, names, token digests) are replaced by `?`; the shape of the query stays.
 */
export function redactStatement(sql: string): string {
  return sql.replace(/'(?:[^']|'')*'/g, '?');
}

/** `SpanProcessor` of `@opentelemetry/sdk-node` (tests pass an in-memory exporter's). */
type SpanProcessor = import('@opentelemetry/sdk-node').tracing.SpanProcessor;

export async function startTracing(
  env: NodeJS.ProcessEnv = process.env,
  options: { spanProcessor?: SpanProcessor } = {},
): Promise<Tracing | undefined> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !options.spanProcessor) return undefined;
  const [{ NodeSDK }, { FastifyOtelInstrumentation }, { PgInstrumentation }, api] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@fastify/otel'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/api'),
  ]).catch((error: unknown) => {
    if ((error as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new TracingUnavailableError(
      `OTEL_EXPORTER_OTLP_ENDPOINT turns tracing on, which needs the optional packages ${TRACING_PACKAGES.join(' ')}, not all installed: npm install ${TRACING_PACKAGES.join(' ')}`,
    );
  });
  const serviceName = env.OTEL_SERVICE_NAME ?? 'marketplace-server';
  // Traces only: metrics are served at /metrics, logs go to stdout. The SDK would otherwise
  // start OTLP metric and log exporters too.
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const fastify = new FastifyOtelInstrumentation({
    // Spans for the request and its handler, not for each of the ~15 hooks a request passes.
    instrumentHooks: false,
    ignorePaths: (route) => UNTRACED_ROUTES.has(route.url),
    requestHook: (span, request) => {
      span.updateName(`${request.method} ${request.routeOptions.url ?? '(unmatched)'}`);
    },
  });
  const sdk = new NodeSDK({
    serviceName,
    instrumentations: [
      new PgInstrumentation({
        requireParentSpan: true,
        requestHook: (span, { query }) => span.setAttribute('db.query.text', redactStatement(query.text)),
      }),
      fastify,
    ],
    ...(options.spanProcessor && { spanProcessors: [options.spanProcessor] }),
  });
  sdk.start();

  const tracer = api.trace.getTracer('@app/server');
  return {
    fastifyPlugin: fastify.plugin(),
    statementSpan(sql, detail) {
      const parent = api.context.active();
      if (!api.trace.getSpan(parent)) return;
      const end = Date.now();
      const operation = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
      const span = tracer.startSpan(
        operation,
        {
          kind: api.SpanKind.CLIENT,
          startTime: end - (detail.tookMs ?? 0),
          attributes: {
            // The stable database conventions, as the pg instrumentation writes them.
            'db.system.name': 'postgresql',
            'db.operation.name': operation,
            'db.query.text': redactStatement(sql),
          },
        },
        parent,
      );
      if (detail.failed) span.setStatus({ code: api.SpanStatusCode.ERROR });
      span.end(end);
    },
    shutdown: () => sdk.shutdown(),
  };
}
