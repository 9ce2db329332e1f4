import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DatabaseProbe } from '../db/probe.js';
import type { UnavailableCause } from '../http/errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * What the last database check found (`true` when the check is off): `/health` and `/ready`
     * answer `503` at once while it is `false`.
     */
    databaseReachable(): boolean;
    /** Resolves with what the next database check finds (never, when the check is off). */
    nextDatabaseCheck(): Promise<boolean>;
    /**
     * The event loop over the last sample interval: its mean delay in ms past the sampling
     * resolution (`Infinity` when it never turned in the whole interval), and its utilisation
     * (0–1). What the overload check compares, and what `/metrics` shows.
     */
    eventLoopSample(): { eventLoopDelay: number; eventLoopUtilized: number };
  }
  interface FastifyContextConfig {
    /** The route cannot answer without the database: turned away while the database check fails. */
    needsDatabase?: boolean;
  }
}

/** The event-loop delay is sampled every this many ms unless told otherwise. */
const DEFAULT_SAMPLE_INTERVAL_MS = 1_000;

/** The resolution (ms) of the event-loop delay histogram: a delay below it is not seen. */
const RESOLUTION_MS = 10;

export interface PressureOptions {
  /** Event-loop delay (ms) past which requests get a 503 (0 turns it off). */
  maxEventLoopDelay: number;
  /** How often (ms) the delay is sampled; keep it well above 10 ms, the histogram's resolution. */
  sampleInterval?: number;
  /** Asks the database every `interval` ms (its answer: `app.databaseReachable()`); unset: no check. */
  databaseCheck?: { probe: DatabaseProbe; interval: number };
}

/** Why a request is turned away at once (`overload`, `database`), or undefined: let it in. */
export type PressureVerdict = (request: FastifyRequest) => UnavailableCause | undefined;

/**
 * The overload and database checks of the admission (plugins/request-lifecycle.ts answers their
 * verdict with a `503` and `Retry-After: 1` at once, never a queue): the event loop lags (cause
 * `overload`), or the last database check failed (cause `database`) for the routes that need the
 * database (`needsDatabase`: the endpoint table's). Without the check every such request would
 * wait for a connection the pool cannot open (up to its 3 s) before failing; the rest (uploads,
 * the document, `/metrics`, `/health`, `/ready`) still answer. The check is the next one's to
 * undo: it runs every interval whatever the answer, so the server recovers by itself.
 *
 * Its periodic work needs no file descriptor: the delay comes from `monitorEventLoopDelay` and
 * the utilisation from `performance.eventLoopUtilization()`, both read in memory. (It was
 * `@fastify/under-pressure`, whose timer also called `process.memoryUsage()` every interval, with
 * no option to turn that off; that reads `/proc/self/stat`, and at the open-file limit its `EMFILE`
 * was thrown out of the timer and shut the server down: test/open-files.test.ts.) A database
 * check that cannot open its connection counts as a database down, like any other failure.
 */
export async function registerPressureChecks(
  app: FastifyInstance,
  options: PressureOptions,
): Promise<PressureVerdict> {
  const check = options.databaseCheck;
  const sampleInterval = Math.max(RESOLUTION_MS, options.sampleInterval ?? DEFAULT_SAMPLE_INTERVAL_MS);

  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  let eventLoopDelay = 0;
  let eventLoopUtilized = 0;
  let utilization = performance.eventLoopUtilization();
  const sample = () => {
    // The mean over the interval, less the resolution the histogram adds to every sample; no
    // sample at all means the loop never turned in the whole interval.
    eventLoopDelay = Math.max(0, histogram.mean / 1e6 - RESOLUTION_MS);
    if (Number.isNaN(eventLoopDelay)) eventLoopDelay = Number.POSITIVE_INFINITY;
    histogram.reset();
    const now = performance.eventLoopUtilization();
    eventLoopUtilized = performance.eventLoopUtilization(now, utilization).utilization;
    utilization = now;
  };
  // Unreferenced: the samples do not keep the process alive.
  const sampler = setInterval(sample, sampleInterval).unref();
  app.decorate('eventLoopSample', () => ({ eventLoopDelay, eventLoopUtilized }));

  /*
   * The delay is sampled every interval from the moment this is registered, so the first samples
   * measure the server's own start (plugins, the document, the first compiles; seconds on a busy
   * machine), and their verdict would turn away the first requests of a server that has only just
   * started listening. A delay verdict is let through until two intervals after the app is ready:
   * the one it holds by then was sampled after the start.
   */
  let readyAt = Number.POSITIVE_INFINITY;
  app.addHook('onReady', (done) => {
    readyAt = performance.now();
    done();
  });
  const measuredTheStart = () => performance.now() - readyAt < 2 * sampleInterval;

  let reachable = true;
  let awaiting: ((reachable: boolean) => void)[] = [];
  app.decorate('databaseReachable', () => reachable);
  app.decorate('nextDatabaseCheck', () => new Promise<boolean>((resolve) => awaiting.push(resolve)));
  let checker: NodeJS.Timeout | undefined;
  if (check) {
    const run = async () => {
      try {
        await check.probe.ping();
        if (!reachable) app.log.info('database check: the database answers again');
        reachable = true;
      } catch (error) {
        // Once per outage, not once per check.
        if (reachable) app.log.warn({ err: error }, 'database check: the database does not answer');
        reachable = false;
      }
      const resolvers = awaiting;
      awaiting = [];
      for (const resolve of resolvers) resolve(reachable);
    };
    // The first verdict is known before the app is ready; then one check every interval, each
    // started once the last has ended.
    await run();
    checker = setTimeout(function again() {
      void run().finally(() => checker?.refresh());
    }, check.interval).unref();
  }

  app.addHook('onClose', async () => {
    clearInterval(sampler);
    clearTimeout(checker);
    checker = undefined;
    histogram.disable();
    await check?.probe.close();
  });

  const maxEventLoopDelay = options.maxEventLoopDelay;
  return (request) => {
    if (maxEventLoopDelay > 0 && eventLoopDelay > maxEventLoopDelay && !measuredTheStart()) return 'overload';
    if (!reachable && request.routeOptions.config.needsDatabase) return 'database';
    return undefined;
  };
}
