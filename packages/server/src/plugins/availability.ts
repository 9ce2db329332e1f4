import { ConnectionException } from '@mikro-orm/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendHttpError, unavailable } from '../http/errors.js';
import { registerUnderPressure, type UnderPressureOptions } from './external/under-pressure.js';

/** Codes of a PostgreSQL that is gone, starting, stopping or out of connections. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '08000',
  '08001',
  '08003',
  '08006',
]);

const UNAVAILABLE_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'connection terminated',
  'Client has encountered a connection error',
  'PGlite is closed',
  'Cannot use a pool after calling end',
  'Client was closed',
  'is not currently accepting connections',
];

/** Whether an error says the database cannot be reached right now (as opposed to a bug). */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ConnectionException) return true;
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true;
  }
  return false;
}

export interface OverloadOptions {
  /** Event-loop delay (ms) past which requests get a 503 (0 turns it off). */
  maxEventLoopDelay: number;
  /** How often (ms) the delay is sampled; keep it well above 10 ms, under-pressure's resolution. */
  sampleInterval?: number;
  /** Requests in progress past which new ones get a 503 (unset or 0: no limit). */
  maxConcurrentRequests?: number;
}

/** The database check of {@link registerOverloadProtection}: see plugins/external/under-pressure.ts. */
export type DatabaseCheck = NonNullable<UnderPressureOptions['databaseCheck']>;

/**
 * Requests in progress at once, at most: part of a started server's default protection. The
 * event-loop delay is only measured every sample interval; until it shows, every request that
 * arrives is let in, and a burst of expensive ones then queues for seconds, the `503`s behind them
 * too. A cap on requests in progress bounds that queue (its latency and memory) from the start.
 */
export const MAX_CONCURRENT_REQUESTS = 64;

/**
 * Under overload (event-loop delay, or too many requests in progress), and while the database
 * check fails, answers `503` with `Retry-After: 1` at once instead of queueing work that would
 * time out; never `429`.
 */
export async function registerOverloadProtection(
  app: FastifyInstance,
  options: OverloadOptions = { maxEventLoopDelay: 1_000, maxConcurrentRequests: MAX_CONCURRENT_REQUESTS },
  databaseCheck?: DatabaseCheck,
): Promise<void> {
  const shed = (reply: FastifyReply) => {
    void sendHttpError(reply, unavailable('overload'));
  };
  await registerUnderPressure(app, {
    maxEventLoopDelay: options.maxEventLoopDelay,
    ...(options.sampleInterval !== undefined && { sampleInterval: options.sampleInterval }),
    ...(databaseCheck && { databaseCheck }),
  });
  const maxConcurrent = options.maxConcurrentRequests ?? 0;
  if (maxConcurrent <= 0) return;
  /*
   * A request holds a slot while the server works on it, not while its client sends the body: a
   * body that trickles in (or never comes) must not keep honest requests out. So a request takes
   * its slot on arrival (the token and tenancy checks are work), gives it back while its body is
   * read, and takes one again before its handler runs.
   */
  let inProgress = 0;
  const holding = new WeakSet<FastifyRequest>();
  const take = (request: FastifyRequest, reply: FastifyReply): boolean => {
    if (inProgress >= maxConcurrent) {
      shed(reply);
      return false;
    }
    inProgress += 1;
    holding.add(request);
    return true;
  };
  const give = (request: FastifyRequest) => {
    if (holding.delete(request)) inProgress -= 1;
  };
  // Requests that gave their slot back while their body arrives, and requests whose response
  // has closed (sent, or the client gone): only the first take a slot again, never the second.
  const awaitingBody = new WeakSet<FastifyRequest>();
  const closed = new WeakSet<FastifyRequest>();
  app.addHook('onRequest', (request, reply, done) => {
    if (!take(request, reply)) return;
    // 'close' comes once the response is sent or the connection is gone, whichever happens.
    reply.raw.once('close', () => {
      closed.add(request);
      give(request);
    });
    done();
  });
  app.addHook('preParsing', (request, _reply, payload, done) => {
    if (!request.raw.complete && holding.has(request)) {
      give(request);
      awaitingBody.add(request);
    }
    done(null, payload);
  });
  app.addHook('preHandler', (request, reply, done) => {
    if (!awaitingBody.delete(request) || closed.has(request) || take(request, reply)) done();
  });
}
