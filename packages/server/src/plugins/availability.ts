import { ConnectionException } from '@mikro-orm/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { causeChain } from '../db/driver-errors.js';
import type { PressureOptions } from './pressure.js';
import { type Admission, registerRequestLifecycle } from './request-lifecycle.js';

/**
 * Codes of a PostgreSQL that is gone, starting, stopping or out of connections (a pooler's own
 * errors: {@link POOLER_CODE}).
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  // The process is at its open-file limit: no connection can be opened now (config.ts, `maxConnections`).
  'EMFILE',
  'ENFILE',
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

/**
 * The SQLSTATE PgBouncer gives the errors of its own (every one of them in 1.18): its login to
 * PostgreSQL failing ("server login has been failing, try again later (server_login_retry)",
 * "client_login_timeout (server down)"), its client limit ("no more connections allowed
 * (max_client_conn)"), a wait for a server connection timed out (`query_wait_timeout`), a server
 * connection lost, the pooler shutting down. A pooler runs no SQL: what it raises itself is about
 * reaching the database. PostgreSQL raises the same code (protocol_violation) for a malformed
 * message from its client: from our drivers, a bug (a bind with fewer values than the statement
 * has parameters is one), which no retry mends, so that one stays a 500. A field tells them apart:
 * PostgreSQL's errors always name the routine that raised them (its `R` field, `pg`'s `routine`,
 * which MikroORM reads too), PgBouncer's never do.
 */
const POOLER_CODE = '08P01';

/** Whether an error says the database cannot be reached right now (as opposed to a bug). */
export function isDatabaseUnavailable(error: unknown): boolean {
  const chain = [...causeChain(error)];
  for (const e of chain) {
    if (e instanceof ConnectionException) return true;
    const { code, message } = e;
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    if (code === POOLER_CODE && !chain.some((raised) => typeof raised.routine === 'string')) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true;
  }
  return false;
}

export interface OverloadOptions {
  /** Event-loop delay (ms) past which requests get a 503 (0 turns it off). */
  maxEventLoopDelay: number;
  /** How often (ms) the delay is sampled; keep it well above 10 ms, the sampling resolution. */
  sampleInterval?: number;
  /** Requests in progress past which new ones get a 503 (unset or 0: no limit). */
  maxConcurrentRequests?: number;
  /**
   * Slots of that cap one client (a user, else an address) may hold at once; past it, its next
   * request gets a 503 (unset or 0: no share).
   */
  maxConcurrentPerClient?: number;
}

/** The database check of {@link registerOverloadProtection}: see plugins/pressure.ts. */
export type DatabaseCheck = NonNullable<PressureOptions['databaseCheck']>;

/**
 * Requests in progress at once, at most: part of a started server's default protection. The
 * event-loop delay is only measured every sample interval; until it shows, every request that
 * arrives is let in, and a burst of expensive ones then queues for seconds, the `503`s behind them
 * too. A cap on requests in progress bounds that queue (its latency and memory) from the start.
 */
export const MAX_CONCURRENT_REQUESTS = 64;

/** A started server's overload protection unless told otherwise. */
export const DEFAULT_OVERLOAD: OverloadOptions = {
  maxEventLoopDelay: 1_000,
  maxConcurrentRequests: MAX_CONCURRENT_REQUESTS,
};

/** A client by its address alone (the app knows users: pipeline/callers.ts). */
const byAddress = (request: FastifyRequest) => `address:${request.ip}`;

/** The {@link Admission} of a started server: the cap, the event-loop delay, the database check. */
export function admissionOf(
  options: OverloadOptions,
  databaseCheck?: DatabaseCheck,
  clientOf: Admission['clientOf'] = byAddress,
): Admission {
  return {
    maxConcurrent: options.maxConcurrentRequests ?? 0,
    maxPerClient: options.maxConcurrentPerClient ?? 0,
    clientOf,
    pressure: {
      maxEventLoopDelay: options.maxEventLoopDelay,
      ...(options.sampleInterval !== undefined && { sampleInterval: options.sampleInterval }),
      ...(databaseCheck && { databaseCheck }),
    },
  };
}

/**
 * Under overload (event-loop delay, or too many requests in progress), and while the database
 * check fails, answers `503` with `Retry-After: 1` at once instead of queueing work that would
 * time out; never `429`. The app registers this as part of its whole request lifecycle
 * (plugins/request-lifecycle.ts, where the slots are taken and given back); this registers that
 * part alone.
 */
export async function registerOverloadProtection(
  app: FastifyInstance,
  options: OverloadOptions = DEFAULT_OVERLOAD,
  databaseCheck?: DatabaseCheck,
): Promise<void> {
  await registerRequestLifecycle(app, { admission: admissionOf(options, databaseCheck) });
}
