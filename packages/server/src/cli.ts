#!/usr/bin/env node
/**
 * `marketplace-server`: tracing (when `OTEL_EXPORTER_OTLP_ENDPOINT` is set) starts before the rest
 * of the server is imported, so that the database driver is instrumented as it loads; the
 * commands are in `commands.ts`.
 */
import { startTracing } from './tracing.js';

const argv = process.argv.slice(2);
const tracing = argv[0] === 'serve' ? await startTracing(process.env) : undefined;
const { run } = await import('./commands.js');
await run(argv, tracing);
