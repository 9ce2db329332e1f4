#!/usr/bin/env node
/**
 * `marketplace-server`: on a Node.js older than it needs, one line and exit 1 before anything else
 * loads (the dependencies would crash with a stack trace). Then tracing (when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set) starts before the rest of the server is imported, so that
 * the database driver is instrumented as it loads; the commands are in `commands.ts`.
 */
import { nodeTooOld } from './node-version.js';

const tooOld = nodeTooOld('marketplace-server');
if (tooOld) {
  process.stderr.write(`${tooOld}\n`);
  process.exit(1);
}
const argv = process.argv.slice(2);
const { startTracing, TracingUnavailableError } = await import('./tracing.js');
const tracing =
  argv[0] === 'serve'
    ? await startTracing(process.env).catch((error: unknown) => {
        if (!(error instanceof TracingUnavailableError)) throw error;
        process.stderr.write(`${error.message}\n`);
        process.exit(1);
      })
    : undefined;
const { run } = await import('./commands.js');
await run(argv, tracing);
