import { Transform } from 'node:stream';
import { NOT_FOUND_MESSAGE, REQUEST_ID_HEADER } from '@app/schemas';
import type { FastifyInstance, FastifyReply, FastifyRequest, RequestPayload, RouteOptions } from 'fastify';
import { payloadTooLarge, sendHttpError, unavailable } from '../http/errors.js';
import { DeadlineQueue, Queued } from './deadline-queue.js';
import { type PressureOptions, registerPressureChecks } from './pressure.js';
import {
  bodyStillArriving,
  contentCodingRefusal,
  drainable,
  draining as drainingSockets,
} from './request-intake.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Requests in progress: those holding a slot of the cap (counted also without a cap). */
    requestsInProgress(): number;
    /** Answers handed to their connection that the client has not taken whole yet. */
    responsesSending(): number;
    /** Bytes of request bodies held in memory now, across requests (the body budget in use). */
    bodyBytesInFlight(): number;
  }
  interface FastifyRequest {
    /**
     * Counts `bytes` more of this request's body against the budget of bodies in memory, until
     * its answer is sent or its connection closes; throws the `503` (cause `bodies`) instead when
     * they would not fit, the `413` when this body alone would be larger than the whole budget.
     * Bytes that arrive once the answer is handed over are not counted (nothing holds them).
     */
    holdBodyBytes(bytes: number): void;
  }
  interface FastifyContextConfig {
    /**
     * The route takes no slot of the cap on requests in progress and is never refused by it (nor
     * by the per-client share): `/health` and `/ready`, cheap, and what a load balancer asks.
     */
    uncapped?: boolean;
  }
}

/** The cap on requests in progress and the overload checks ({@link registerRequestLifecycle}). */
export interface Admission {
  /** Requests in progress past which new ones get a `503` (0: no limit, only counted). */
  maxConcurrent: number;
  /**
   * Slots of the cap one client may hold at once; one more of its requests gets a `503` (cause
   * `share`) while other clients still get slots. 0, or no cap: no share.
   */
  maxPerClient: number;
  /** The client a request counts against (decided on arrival, before its token is looked up). */
  clientOf: (request: FastifyRequest) => string;
  /** The overload and database checks (event-loop delay, database), run just before the cap. */
  pressure: PressureOptions;
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

/** What {@link registerRequestLifecycle} does; a step left out is not done. */
export interface LifecycleOptions {
  /** Every answer carries its request's (the server's) id in `X-Request-Id`. */
  requestId?: boolean;
  /** Requests arriving while the server shuts down get the `503`; answers close their connection. */
  draining?: boolean;
  /** Unknown routes are `404` on arrival; answers get `nosniff`; bodies count against this budget. */
  intake?: { bodyBudgetBytes: number };
  deadlines?: Deadlines;
  admission?: Admission;
}

/** Where Fastify keeps a request's {@link RequestState} (a decoration of our own, by symbol). */
const kState = Symbol('request state');

/**
 * What the lifecycle tracks of one request, from its arrival until its response closes. It waits
 * for one deadline at a time (its answer's, then its answer's sending), linked in that queue.
 */
class RequestState extends Queued {
  /** It holds a slot of the cap on requests in progress. */
  holdsSlot = false;
  /** The client whose share its slot counts against (set on its first slot, when shares apply). */
  client: string | undefined = undefined;
  /** It gave its slot back while its body arrives, and takes one again before its handler. */
  awaitingBody = false;
  /** Its answer was handed over or its connection went: it never takes a slot again. */
  settled = false;
  /** Bytes of its body counted against the budget of bodies in memory. */
  bodyBytes = 0;
  /** Its answer is counted among those being sent (`responsesSending`). */
  sending = false;
  /** Its response closed (sent whole, or the connection went). */
  closed = false;

  constructor(
    readonly request: FastifyRequest,
    readonly reply: FastifyReply,
  ) {
    super();
  }
}

type WithState = FastifyRequest & { [kState]: RequestState | null };

/**
 * The app-wide steps every request goes through, one Fastify hook per phase instead of one hook
 * per concern, one `close` listener per request instead of three, and two shared timers instead
 * of two per request. Each hook, listener, timer and `WeakMap` entry cost 1–2 µs of a show's
 * 70 µs (docs/performance-log.md, issue #27 item 3). Each step is written where it runs, in the
 * order it has always run in:
 *
 * - `onRequest`, on arrival (registered where the app places this plugin: after CORS, so that
 *   every answer below carries its headers):
 *   1. while shutting down, the `503` (cause `shutdown`), before any work: its client retries on
 *      another instance. Fastify's own answer (`return503OnClosing`, off in app.ts) has neither
 *      the documented body nor `Retry-After`;
 *   2. an unknown route (or method) is `404`, before its body is read;
 *   3. the request's answer deadline starts (`deadlines.answerMs`).
 * - then a second `onRequest`: the verdict of the overload and database checks
 *   (plugins/pressure.ts), then the slot of the cap (within the client's share; none for an
 *   `uncapped` route). The checks' verdict comes before the cap's (a refused database is
 *   `database`, not `overload`) and after the `404`.
 * - `preParsing`: a body in a content coding is `415` (request-intake.ts); the body budget (a
 *   body announced larger than what is left is `503`, larger than the whole budget `413`; its
 *   bytes are counted as they arrive); then, on the routes that read a body (added by `onRoute`),
 *   the slot is given back while the body arrives.
 * - `preHandler`, on the routes that read a body: the slot taken again.
 * - `onSend`, one hook: the headers every answer carries (`X-Request-Id`, `nosniff`,
 *   `Connection: close` while shutting down or when a refused body is still arriving), the end
 *   of the answer deadline, the slot given back for good, the send deadline started.
 * - the response's `close` (sent whole, or the connection gone): the body's bytes, the slot and
 *   both deadlines are let go.
 */
export async function registerRequestLifecycle(
  app: FastifyInstance,
  options: LifecycleOptions,
): Promise<void> {
  const { requestId = false, intake, deadlines, admission } = options;
  app.decorateRequest(kState, null);

  let shuttingDown = false;
  if (options.draining)
    app.addHook('preClose', async () => {
      shuttingDown = true;
    });

  // The cap on requests in progress (counted also without a cap, for the metrics). A request
  // holds a slot while the server works on it: not while its client sends the body (a body that
  // trickles in, or never comes, must not keep honest requests out), and not while its client
  // takes the answer (a client that does not read must not either; the send deadline bounds
  // that). So it takes its slot on arrival (the token and tenancy checks are work), gives it back
  // while its body is read, takes one again before its handler runs, and gives it back for good
  // once its answer is handed to the connection (`onSend`) or its connection closes.
  //
  // Each client (a user, by a token seen to authenticate before; else an address: pipeline/
  // callers.ts) may hold at most `maxPerClient` of the slots; past it its next request gets the
  // `503` (cause `share`) while the others' still get slots. Without it, one token with 200
  // keep-alive requests (or none, hammering one path) held the cap: two thirds and more of another
  // user's requests were `503`. Routes marked `uncapped` (`/health`, `/ready`) take no slot.
  let inProgress = 0;
  const maxConcurrent = admission?.maxConcurrent ?? 0;
  const maxPerClient = maxConcurrent > 0 ? (admission?.maxPerClient ?? 0) : 0;
  const clientOf = admission?.clientOf;
  /** Slots held by each client holding any (the key goes with its last slot). */
  const heldBy = new Map<string, number>();
  app.decorate('requestsInProgress', () => inProgress);
  const take = (state: RequestState): boolean => {
    if (maxPerClient > 0 && clientOf) {
      state.client ??= clientOf(state.request);
      const held = heldBy.get(state.client) ?? 0;
      if (held >= maxPerClient) {
        void sendHttpError(state.reply, unavailable('share'));
        return false;
      }
    }
    if (maxConcurrent > 0 && inProgress >= maxConcurrent) {
      void sendHttpError(state.reply, unavailable('overload'));
      return false;
    }
    if (state.client !== undefined) heldBy.set(state.client, (heldBy.get(state.client) ?? 0) + 1);
    inProgress += 1;
    state.holdsSlot = true;
    return true;
  };
  const give = (state: RequestState) => {
    if (!state.holdsSlot) return;
    state.holdsSlot = false;
    inProgress -= 1;
    const client = state.client;
    if (client === undefined) return;
    const held = (heldBy.get(client) ?? 1) - 1;
    if (held > 0) heldBy.set(client, held);
    else heldBy.delete(client);
  };
  const settle = (state: RequestState) => {
    state.settled = true;
    give(state);
  };

  // The budget of bodies in memory: every body is counted as it arrives (a JSON body chunk by
  // chunk here, a multipart form part by part, its files included: pipeline/multipart.ts), and
  // its bytes are given back when its response closes (an upload abandoned half-way included).
  // Without it, 150 connections each holding an almost complete 5 MiB logo took 629 MiB.
  const budget = intake?.bodyBudgetBytes ?? Number.POSITIVE_INFINITY;
  let bodyBytes = 0;
  app.decorate('bodyBytesInFlight', () => bodyBytes);
  app.decorateRequest('holdBodyBytes', function holdBodyBytes(this: FastifyRequest, bytes: number) {
    // Bodies are read after `onRequest`, which made the request's state on arrival.
    const state = (this as WithState)[kState] as RequestState;
    // Once its answer is handed over, nothing reads the request's body any more: what still
    // arrives (a body refused `413` or `415` while it arrives keeps flowing until its connection
    // closes) is dropped, not held. Counted after its response closed, it was never given back:
    // each 10 MB chunked body refused `413` kept about 1 MB of the budget for good.
    if (state.settled) return;
    // A body that alone grows past the whole budget can never be held: `413`, not retryable.
    if (state.bodyBytes + bytes > budget) throw payloadTooLarge();
    if (bodyBytes + bytes > budget) throw unavailable('bodies');
    bodyBytes += bytes;
    state.bodyBytes += bytes;
  });

  // The deadlines: each queue has every request wait the same time, so one timer serves them all.
  let sending = 0;
  app.decorate('responsesSending', () => sending);
  const answerMs = deadlines && deadlines.answerMs > 0 ? deadlines.answerMs : 0;
  const answerLate = (state: RequestState) => {
    const { request, reply } = state;
    if (reply.sent || reply.raw.headersSent) return;
    if (bodyStillArriving(request.raw)) {
      // The receive timeout drops it if the body does not come; if it does, it is late already.
      lateBodies?.add(state);
      return;
    }
    request.log.warn({ url: request.url }, 'request timed out');
    void sendHttpError(reply, unavailable('timeout'));
  };
  // Fastify's own `handlerTimeout` is not used: it is disarmed once a request's body has been
  // read, so a `PATCH` waiting on a lock was answered only when the lock went.
  const answers = answerMs > 0 ? new DeadlineQueue(answerMs, answerLate) : undefined;
  const lateBodies = answerMs > 0 ? new DeadlineQueue(Math.min(answerMs, 1_000), answerLate) : undefined;
  const sends =
    deadlines &&
    new DeadlineQueue<RequestState>(deadlines.sendMs, ({ request, reply }) => {
      request.log.warn({ url: request.url }, 'answer not taken within the send timeout: connection reset');
      const socket = request.raw.socket;
      // A reset frees the connection's buffers at once; a close would keep sending them.
      if (typeof socket?.resetAndDestroy === 'function') socket.resetAndDestroy();
      else reply.raw.destroy();
    });

  const closed = (state: RequestState) => {
    state.closed = true;
    settle(state);
    bodyBytes -= state.bodyBytes;
    state.bodyBytes = 0;
    state.queue?.delete(state);
    if (state.sending) {
      state.sending = false;
      sending -= 1;
    }
  };
  /** The request's state, made (with its one `close` listener) by the first hook that sees it. */
  const stateOf = (request: FastifyRequest, reply: FastifyReply): RequestState => {
    const known = (request as WithState)[kState];
    if (known) return known;
    const state = new RequestState(request, reply);
    (request as WithState)[kState] = state;
    // 'close' comes once the response is sent whole or the connection is gone, whichever happens.
    reply.raw.on('close', () => closed(state));
    return state;
  };

  app.addHook('onRequest', (request, reply, done) => {
    const state = stateOf(request, reply);
    if (shuttingDown) return void sendHttpError(reply, unavailable('shutdown'));
    if (intake && request.is404) return void reply.code(404).send({ error: NOT_FOUND_MESSAGE });
    answers?.add(state);
    done();
  });

  if (admission) {
    const pressure = await registerPressureChecks(app, admission.pressure);
    app.addHook('onRequest', (request, reply, done) => {
      // Turned away (the event loop lags, the database is down): nothing more runs for it.
      const cause = pressure(request);
      if (cause !== undefined) return void sendHttpError(reply, unavailable(cause));
      if (request.routeOptions.config.uncapped) return done();
      if (take(stateOf(request, reply))) done();
    });
  }

  if (intake)
    app.addHook('preParsing', (request, _reply, payload, done) => {
      const { headers } = request;
      // No body at all (every GET): nothing to count.
      if (headers['transfer-encoding'] === undefined && (headers['content-length'] ?? '0') === '0')
        return done(null, payload);
      // A compressed body is refused before it is read (and before it counts).
      const refusal = contentCodingRefusal(headers);
      if (refusal) return done(refusal);
      const announced = Number(headers['content-length'] ?? 0);
      if (announced > budget - bodyBytes) {
        // Announced larger than its route reads (Fastify's body limit, a form's cap): the route's
        // `413`, answered before the body is read. Larger than the whole budget: it can never be
        // held, `413` too. Neither is the transient `503`, which asks the client to send it again.
        const limit = request.routeOptions.config.maxBodyBytes ?? request.routeOptions.bodyLimit;
        if (announced <= limit) return done(announced > budget ? payloadTooLarge() : unavailable('bodies'));
      }
      // Multipart forms are read by @fastify/multipart from the request itself: counted part by part.
      if (headers['content-type']?.toLowerCase().startsWith('multipart/')) return done(null, payload);
      done(null, countedBody(request, payload));
    });
  // The slot is given back while a body arrives, and taken again before the handler, by hooks of
  // the routes whose body Fastify reads: it reads none of a GET or a HEAD, whose requests keep
  // their slot and run no hook here. (Route hooks run after the app's: the budget comes first.)
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some(readsBody)) return;
    route.preParsing = [giveBack, ...[route.preParsing ?? []].flat()];
    route.preHandler = [takeAgain, ...[route.preHandler ?? []].flat()];
  });
  function giveBack(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: RequestPayload,
    done: (error: Error | null, payload: RequestPayload) => void,
  ) {
    const state = stateOf(request, reply);
    if (state.holdsSlot && bodyStillArriving(request.raw)) {
      give(state);
      state.awaitingBody = true;
    }
    done(null, payload);
  }
  function takeAgain(request: FastifyRequest, reply: FastifyReply, done: () => void) {
    const state = stateOf(request, reply);
    if (!state.awaitingBody || state.settled) return done();
    state.awaitingBody = false;
    if (take(state)) done();
  }

  app.addHook('onSend', (request, reply, payload, done) => {
    const state = stateOf(request, reply);
    if (requestId) reply.header(REQUEST_ID_HEADER, request.id);
    if (shuttingDown) reply.header('connection', 'close');
    if (intake) {
      // No response of ours is to be read as another type than it says (an upload as HTML, say).
      reply.header('x-content-type-options', 'nosniff');
      // A body still arriving after an early answer: read and dropped, or its connection closed
      // (request-intake.ts).
      if (bodyStillArriving(request.raw)) {
        if (drainable(request, reply.statusCode)) drainingSockets.add(request.raw.socket);
        else reply.header('connection', 'close');
      }
    }
    answers?.delete(state);
    lateBodies?.delete(state);
    settle(state);
    // An answer to a connection already gone is not being sent (and no `close` would count it off).
    if (sends && !state.sending && !state.closed && !reply.raw.destroyed) {
      state.sending = true;
      sending += 1;
      sends.add(state);
    }
    done(null, payload);
  });
}

/** Whether Fastify reads a body of this method (it reads none of a GET or a HEAD). */
const readsBody = (method: string) => method !== 'GET' && method !== 'HEAD';

/** The request's body, each chunk counted against the budget as it arrives. */
function countedBody(request: FastifyRequest, payload: NodeJS.ReadableStream) {
  const counted = Object.assign(
    new Transform({
      transform(chunk: Buffer, _encoding, next) {
        try {
          request.holdBodyBytes(chunk.length);
        } catch (error) {
          return next(error as Error);
        }
        counted.receivedEncodedLength += chunk.length;
        next(null, chunk);
      },
    }),
    { receivedEncodedLength: 0 },
  );
  payload.on('error', (error) => counted.destroy(error));
  return payload.pipe(counted);
}
