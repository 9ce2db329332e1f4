import underPressure, { TYPE_EVENT_LOOP_DELAY, TYPE_HEALTH_CHECK } from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import type { DatabaseProbe } from '../../db/probe.js';
import { sendHttpError, unavailable } from '../../http/errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * What the last database check found (`true` when the check is off): `/health` and `/ready`
     * answer `503` at once while it is `false`.
     */
    databaseReachable(): boolean;
    /** Resolves with what the next database check finds (never, when the check is off). */
    nextDatabaseCheck(): Promise<boolean>;
  }
  interface FastifyContextConfig {
    /** The route cannot answer without the database: turned away while the database check fails. */
    needsDatabase?: boolean;
  }
}

/** under-pressure's sample interval when none is given. */
const UNDER_PRESSURE_SAMPLE_INTERVAL_MS = 1_000;

export interface UnderPressureOptions {
  /** Event-loop delay (ms) past which requests get a 503 (0 turns it off). */
  maxEventLoopDelay: number;
  /** How often (ms) the delay is sampled; keep it well above 10 ms, under-pressure's resolution. */
  sampleInterval?: number;
  /** Asks the database every `interval` ms (its answer: `app.databaseReachable()`); unset: no check. */
  databaseCheck?: { probe: DatabaseProbe; interval: number };
}

/**
 * `@fastify/under-pressure` with our settings: a `503` with `Retry-After: 1` at once, never a
 * queue, when the event loop lags (cause `overload`), or when the last database check failed
 * (cause `database`), for the routes that need the database (`needsDatabase`: the endpoint
 * table's). Without the check every such request would wait for a connection the pool cannot
 * open (up to its 3 s) before failing; the rest (uploads, the document, `/metrics`, `/health`,
 * `/ready`) still answer. The check is the next one's to undo: it runs every interval whatever
 * the answer, so the server recovers by itself.
 */
export async function registerUnderPressure(
  app: FastifyInstance,
  options: UnderPressureOptions,
): Promise<void> {
  const check = options.databaseCheck;
  /*
   * under-pressure samples the event-loop delay every interval from the moment it is registered,
   * so the first samples measure the server's own start (plugins, the document, the first
   * compiles; seconds on a busy machine), and their verdict would turn away the first requests
   * of a server that has only just started listening. A delay verdict is let through until two
   * intervals after the app is ready: the one it holds by then was sampled after the start.
   */
  const sampleInterval = options.sampleInterval ?? UNDER_PRESSURE_SAMPLE_INTERVAL_MS;
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
  if (check) app.addHook('onClose', () => check.probe.close());
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelay,
    ...(options.sampleInterval !== undefined && { sampleInterval: options.sampleInterval }),
    ...(check && {
      healthCheck: async () => {
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
        return reachable;
      },
      healthCheckInterval: check.interval,
    }),
    pressureHandler: (request, reply, type) => {
      if (type === TYPE_EVENT_LOOP_DELAY && measuredTheStart()) return;
      if (type !== TYPE_HEALTH_CHECK) void sendHttpError(reply, unavailable('overload'));
      else if (request.routeOptions.config.needsDatabase) void sendHttpError(reply, unavailable('database'));
    },
  });
}
