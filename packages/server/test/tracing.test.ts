/**
 * OpenTelemetry traces: a span per request named after its route template, with child spans for
 * the database statements it ran (PGlite: from MikroORM's reports; PostgreSQL: the pg
 * instrumentation). Spans are collected by an in-memory exporter. Tracing starts before the
 * harness (and with it `pg`) is imported, as `cli.ts` starts it before the server.
 */
import { tracing as sdkTracing } from '@opentelemetry/sdk-node';
import { afterAll, describe, expect, it } from 'vitest';
import { redactStatement, startTracing } from '../src/tracing.js';

const exporter = new sdkTracing.InMemorySpanExporter();
const tracing = await startTracing({}, { spanProcessor: new sdkTracing.SimpleSpanProcessor(exporter) });
if (!tracing) throw new Error('tracing did not start');
const { useTestServer } = await import('./harness.js');
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

const server = useTestServer(
  {},
  { tracing },
  // On PGlite the server records statement spans from MikroORM's reports (see startServer).
  onPostgres ? {} : { onQuery: tracing.statementSpan },
);
afterAll(() => tracing.shutdown());

describe('with tracing on', () => {
  it('gives a request a span named after its route template, and its statements child spans', async () => {
    const { token } = await server.createUser();
    exporter.reset();
    const res = await server.get('/organizations/nope.json', { token });
    expect(res.statusCode).toBe(404);

    const spans = exporter.getFinishedSpans();
    const request = spans.find((span) => span.name === 'GET /organizations/:id');
    expect(request).toBeDefined();
    expect(request?.attributes['http.route']).toBe('/organizations/:id');
    expect(request?.attributes['http.response.status_code']).toBe(404);
    const traceId = request?.spanContext().traceId;

    const statements = spans.filter((span) => span.attributes['db.system.name'] === 'postgresql');
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) expect(statement.spanContext().traceId).toBe(traceId);
    const text = statements.map((span) => String(span.attributes['db.query.text']));
    // The caller statement is prepared: its values (the token's digest, the id asked for) are bound,
    // never in the text; those MikroORM inlines elsewhere are left out too.
    expect(text.some((sql) => /from access_tokens tok[\s\S]*where tok\.digest = \$1/.test(sql))).toBe(true);
    expect(text.join('\n')).not.toContain("'nope'");
  });

  it('continues the trace of an incoming traceparent header', async () => {
    exporter.reset();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    await server.get('/organizations.json', {
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    const request = exporter.getFinishedSpans().find((span) => span.name === 'GET /organizations');
    expect(request?.spanContext().traceId).toBe(traceId);
  });

  it('leaves health checks and metric scrapes out', async () => {
    exporter.reset();
    await server.get('/health');
    await server.get('/metrics');
    expect(exporter.getFinishedSpans().filter((span) => span.attributes['http.route'] !== undefined)).toEqual(
      [],
    );
  });
});

describe('statements in spans', () => {
  it('have their string literals replaced by ?', () => {
    expect(
      redactStatement("select * from users where email = 'a@b.c' and name = 'O''Neil' and id = $1"),
    ).toBe('select * from users where email = ? and name = ? and id = $1');
  });
});

describe('without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('does not start', async () => {
    expect(await startTracing({})).toBeUndefined();
  });
});
