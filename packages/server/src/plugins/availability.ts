import { ConnectionException } from '@mikro-orm/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendHttpError, unavailable } from '../http/errors.js';
import { registerUnderPressure, type UnderPressureOptions } from './external/under-pressure.js';
import { bodyStillArriving } from './request-intake.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Requests in progress: those holding a slot of the cap (counted also without a cap). */
    requestsInProgress(): number;
    /** Answers handed to their connection that the client has not taken whole yet. */
    responsesSending(): number;
  }
}

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
  /*
   * A request holds a slot while the server works on it: not while its client sends the body (a
   * body that trickles in, or never comes, must not keep honest requests out), and not while its
   * client takes the answer (a client that does not read must not either; the send timeout of
   * registerDeadlines bounds that). So a request takes its slot on arrival (the token and tenancy
   * checks are work), gives it back while its body is read, takes one again before its handler
   * runs, and gives it back for good once its answer is handed to the connection (`onSend`) or
   * its connection closes, whichever comes first. Counted also without a cap (the metrics).
   */
  let inProgress = 0;
  app.decorate('requestsInProgress', () => inProgress);
  const holding = new WeakSet<FastifyRequest>();
  const take = (request: FastifyRequest, reply: FastifyReply): boolean => {
    if (maxConcurrent > 0 && inProgress >= maxConcurrent) {
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
  // Requests that gave their slot back while their body arrives, and requests whose answer is
  // settled (handed over, or the client gone): only the first take a slot again, never the second.
  const awaitingBody = new WeakSet<FastifyRequest>();
  const settled = new WeakSet<FastifyRequest>();
  const settle = (request: FastifyRequest) => {
    settled.add(request);
    give(request);
  };
  app.addHook('onRequest', (request, reply, done) => {
    if (!take(request, reply)) return;
    // 'close' comes once the response is sent or the connection is gone, whichever happens.
    reply.raw.once('close', () => settle(request));
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
    if (!awaitingBody.delete(request) || settled.has(request) || take(request, reply)) done();
  });
  app.addHook('onSend', (request, _reply, payload, done) => {
    settle(request);
    done(null, payload);
  });
}

export interface Deadlines {
  /**
   * Milliseconds from a request's arrival to its answer: one still being worked on then gets the
   * `503` (cause `timeout`). A request whose body is still arriving then is the receive
   * timeout's (`408`); if its body does come in, it gets the `503` within a second of it.
   */
  answerMs: number; // 0: no request timeout
  /**
   * Milliseconds a client has to take an answer once it is handed to the connection: one that
   * has not taken it whole by then (all of it handed to the operating system) has its connection
   * reset.
   */
  sendMs: number;
}

/**
 * Every request is answered, or its connection dropped, within a bound:
 * - its answer is decided within `answerMs` of its arrival, or it is answered `503` with
 *   `Retry-After: 1` (cause `timeout`). Fastify's own `handlerTimeout` is not used: it is
 *   disarmed once a request's body has been read, so a `PATCH` waiting on a lock was answered
 *   only when the lock went;
 * - its answer is taken by the client within `sendMs` of being handed over, or the connection is
 *   reset: a client that stops reading cannot keep an answer (a 5 MiB upload, the reference
 *   page's script), its buffers and its socket for as long as it likes.
 */
export function registerDeadlines(app: FastifyInstance, deadlines: Deadlines): void {
  const answering = new WeakMap<FastifyRequest, NodeJS.Timeout>();
  const sending = new WeakSet<FastifyReply>();
  let inFlight = 0;
  app.decorate('responsesSending', () => inFlight);

  const answerLate = (request: FastifyRequest, reply: FastifyReply) => {
    if (reply.sent || reply.raw.headersSent) return;
    if (bodyStillArriving(request.raw)) {
      // The receive timeout drops it if the body does not come; if it does, it is late already.
      answering.set(request, setTimeout(answerLate, Math.min(deadlines.answerMs, 1_000), request, reply));
      return;
    }
    request.log.warn({ url: request.url }, 'request timed out');
    void sendHttpError(reply, unavailable('timeout'));
  };
  // 0 (or less) turns the request timeout off, as Fastify's `handlerTimeout: 0` did.
  if (deadlines.answerMs > 0)
    app.addHook('onRequest', (request, reply, done) => {
      answering.set(request, setTimeout(answerLate, deadlines.answerMs, request, reply));
      reply.raw.once('close', () => clearTimeout(answering.get(request)));
      done();
    });
  app.addHook('onSend', (request, reply, payload, done) => {
    clearTimeout(answering.get(request));
    if (!sending.has(reply)) {
      sending.add(reply);
      inFlight += 1;
      const timer = setTimeout(() => {
        request.log.warn({ url: request.url }, 'answer not taken within the send timeout: connection reset');
        const socket = request.raw.socket;
        // A reset frees the connection's buffers at once; a close would keep sending them.
        if (typeof socket?.resetAndDestroy === 'function') socket.resetAndDestroy();
        else reply.raw.destroy();
      }, deadlines.sendMs);
      let over = false;
      const taken = () => {
        if (over) return;
        over = true;
        clearTimeout(timer);
        inFlight -= 1;
      };
      // 'finish': the whole answer is with the operating system; 'close' alone: the connection went.
      reply.raw.once('finish', taken);
      reply.raw.once('close', taken);
    }
    done(null, payload);
  });
}
