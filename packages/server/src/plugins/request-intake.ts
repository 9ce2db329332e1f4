import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { compile } from '@fastify/proxy-addr';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  badRequest,
  type HttpError,
  unsupportedContentEncoding,
  unsupportedMediaType,
} from '../http/errors.js';
import { clientNetwork } from '../pipeline/callers.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Connections open now; those refused since the start (past `maxConnections`, or past an
     * address's share); and those closed at the cap to take another address's (`evicted`).
     */
    connectionCounts(): { open: number; refused: number; evicted: number };
  }
  interface FastifyContextConfig {
    /**
     * The largest body the route reads (a multipart form with its files; Fastify's `bodyLimit`
     * otherwise): the rest of a body within it is read and dropped after an early answer.
     */
    maxBodyBytes?: number;
  }
}

/**
 * How requests are taken in, against clients that send bodies slowly or never:
 * - an unknown route (or method) is answered `404` on arrival, before its body is read (the
 *   token, JSON-selection, tenancy and role checks of known routes also answer before the body:
 *   they run in `onRequest`);
 * - an answer sent before the request's body was read (a `401`, `403`, `404`, `406` decided on
 *   its head, a `413` for a body announced too large) reads and drops the rest of a body announced
 *   within {@link DRAIN_LIMIT_FACTOR} times the route's limit, so that a client still writing its
 *   upload sees the answer instead of a broken pipe (issue #29); the receive timeout still bounds
 *   how long that takes. Any other answer sent while the body is still arriving (an unknown route,
 *   a body announced larger still or not announced, a `503`, a body already being read) closes the
 *   connection, so a refused client cannot keep it busy;
 * - a request not received whole within the receive timeout is answered `408` by Node and its
 *   connection closed (see {@link receiveTimeoutOptions}).
 * This registers the body parsers; the `404`, the early answers' connections and the budget of
 * bodies in memory are steps of the request lifecycle's hooks (plugins/request-lifecycle.ts).
 */
export function registerRequestIntake(app: FastifyInstance, options: ConnectionOptions): void {
  limitConnections(app, options);
  limitJsonDepth(app);
  // Bodies are JSON (or multipart forms for files): a JSON text labelled text/plain, which
  // `fetch` sends without a content type, is 415 like any other type, not a body read as a string.
  app.removeContentTypeParser('text/plain');
  readEmptyBodyOfAnyType(app);
}

export interface ConnectionOptions {
  /** Connections held at once; one more is closed as soon as it is accepted (0: no limit). */
  maxConnections: number;
  /**
   * The reverse proxies in front (`MARKETPLACE_TRUST_PROXY`): their connections carry many clients
   * and are held to no address's share. A number of hops: every peer is a proxy.
   */
  trustProxy?: readonly string[] | number;
}

/**
 * The share of `maxConnections` one address holds at most: half (rounded up), as a client's share
 * of the cap on requests in progress is half of it (config.ts): one address cannot take every
 * connection, two are needed to fill the cap.
 */
export function connectionsPerAddress(maxConnections: number): number {
  return Math.ceil(maxConnections / 2);
}

/**
 * Whether a connection's peer is one of the trusted proxies of `MARKETPLACE_TRUST_PROXY`, by the
 * rule Fastify's `trustProxy` applies to it (proxy-addr's public `compile`: addresses, ranges,
 * `loopback`/`linklocal`/`uniquelocal`, an IPv4 client of a dual-stack socket as its address).
 */
export function proxyPeer(trust: readonly string[] | number | undefined): (address: string) => boolean {
  if (trust === undefined) return () => false;
  if (typeof trust === 'number') return () => true;
  const trusted = compile([...trust]);
  return (address) => trusted(address, 0);
}

/** At most one log line per this many ms says that connections are being refused. */
const REFUSALS_LOGGED_EVERY_MS = 10_000;

/**
 * The connections a process holds: each takes a file descriptor, and a process at its open-file
 * limit can open nothing more (an upload's file, a database connection, `/proc/self/stat`).
 * `maxConnections` (config.ts, `defaultMaxConnections`: from the open-file limit, with room for
 * what requests open) bounds them, shared out so that no one client takes them all:
 * - one address (an IPv6 client's /64) holds at most {@link connectionsPerAddress} of them: past
 *   it, its new connection is closed as soon as it is accepted, so that a client holding
 *   connections open (slowly sent heads, reopened as the receive timeout closes them) cannot take
 *   every connection from the others;
 * - at the cap, a new connection of an address holding fewer than the one holding the most, less
 *   one, is taken and the newest connection of the address holding the most is closed for it: two
 *   addresses holding half each (or a few holding all) cannot keep a third out. When no address
 *   holds two more than the newcomer (many addresses holding one or two each), the new connection
 *   is closed as soon as it is accepted, and the ones held keep being served.
 * A trusted proxy's connections (`MARKETPLACE_TRUST_PROXY`) carry many clients: they are held to
 * no share and never closed for another's. Refusals and connections closed for another's are
 * counted for `/metrics` and logged at `warn`, at most once per 10 s with how many since the last
 * line (a flood must not become a flood of log lines). The closed connection is the address's
 * newest, whatever it is doing: a flood's are its newest, and a client that shares the address
 * (a NAT) keeps the connections it has held longer; one in use is closed as by any reset, and a
 * request on it is retried (the SDK sends an `Idempotency-Key` with each create, so a retried
 * create is not made twice).
 */
function limitConnections(app: FastifyInstance, options: ConnectionOptions): void {
  const server = app.server;
  let open = 0;
  let refused = 0;
  let evicted = 0;
  app.decorate('connectionCounts', () => ({ open, refused, evicted }));
  const logs = new Map<string, { at: number; unlogged: number }>();
  /** Logs `message` at most once per 10 s, with how many times it happened since its last line (as `count`). */
  const warn = (details: Record<string, unknown>, message: string, count: 'refused' | 'closed') => {
    const log = logs.get(message) ?? { at: Number.NEGATIVE_INFINITY, unlogged: 0 };
    logs.set(message, log);
    log.unlogged += 1;
    const now = performance.now();
    if (now - log.at < REFUSALS_LOGGED_EVERY_MS) return;
    app.log.warn({ maxConnections: options.maxConnections, ...details, [count]: log.unlogged }, message);
    log.at = now;
    log.unlogged = 0;
  };
  const refuse = (socket: Socket, details: Record<string, unknown>, message: string) => {
    refused += 1;
    warn(details, message, 'refused');
    socket.destroy();
  };
  const max = Math.max(0, options.maxConnections);
  const share = max > 0 ? connectionsPerAddress(max) : 0;
  const fromProxy = proxyPeer(options.trustProxy);
  // Each address's connections, in the order they came (a trusted proxy's are not held to one).
  const held = new Map<string, Set<Socket>>();
  /** The connections of the address holding the most (a walk of the addresses: only at the cap). */
  const heaviest = () => {
    let most: Set<Socket> | undefined;
    for (const sockets of held.values()) if (most === undefined || sockets.size > most.size) most = sockets;
    return most;
  };
  /** The last of `sockets` to come. */
  const newestOf = (sockets: Set<Socket>) => {
    let newest: Socket | undefined;
    for (const socket of sockets) newest = socket;
    return newest;
  };
  server.on('connection', (socket: Socket) => {
    open += 1;
    socket.once('close', () => {
      open -= 1;
    });
    if (max === 0) return;
    const peer = socket.remoteAddress;
    const address = peer === undefined || fromProxy(peer) ? undefined : clientNetwork(peer);
    const own = address === undefined ? undefined : held.get(address);
    const holding = own?.size ?? 0;
    if (address !== undefined && holding >= share)
      return refuse(
        socket,
        { remoteAddress: address, connectionsPerAddress: share },
        'refusing connections: an address holds its share of MARKETPLACE_MAX_CONNECTIONS already',
      );
    if (open > max) {
      const most = heaviest();
      const newest = most !== undefined && most.size > holding + 1 ? newestOf(most) : undefined;
      if (most === undefined || newest === undefined)
        return refuse(
          socket,
          {},
          'refusing connections: the server holds MARKETPLACE_MAX_CONNECTIONS already',
        );
      evicted += 1;
      warn(
        { connectionsOfTheClosed: most.size },
        "closing connections at MARKETPLACE_MAX_CONNECTIONS: the newest of the address holding the most, for another address's",
        'closed',
      );
      most.delete(newest);
      newest.destroy();
    }
    if (address === undefined) return;
    const sockets = own ?? new Set<Socket>();
    if (own === undefined) held.set(address, sockets);
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0 && held.get(address) === sockets) held.delete(address);
    });
  });
}

/**
 * A body in a type no parser reads is `415`; but no body at all is no body, whatever its label:
 * axios labels a bodiless `POST` `application/x-www-form-urlencoded`, and a transition or a
 * delete sent so answers as one sent without a type (issue #29). The body is read only up to its
 * first byte: a body that is there is refused at once, an empty one ends at once.
 */
function readEmptyBodyOfAnyType(app: FastifyInstance): void {
  app.addContentTypeParser('*', (_request, payload, done) => {
    let decided = false;
    const decide = (error: Error | null) => {
      if (decided) return;
      decided = true;
      payload.removeListener('data', onData);
      done(error, undefined);
    };
    const onData = () => decide(unsupportedMediaType());
    payload.on('data', onData);
    payload.once('end', () => decide(null));
    payload.once('error', (error) => decide(error));
  });
}

/**
 * The refusal of a body sent in a content coding other than `identity` (`gzip`, `deflate`, `br`,
 * a list of them): `415`, before any of it is read. Nothing is decompressed (a small compressed
 * body can inflate past every limit); its bytes were read as JSON, a misleading `400` "not valid
 * UTF-8".
 */
export function contentCodingRefusal(headers: FastifyRequest['headers']): HttpError | undefined {
  const coding = headers['content-encoding'];
  if (coding === undefined) return undefined;
  const codings = coding.split(',').map((c) => c.trim().toLowerCase());
  return codings.every((c) => c === '' || c === 'identity') ? undefined : unsupportedContentEncoding();
}

/**
 * Whether the request announced a body that has not all arrived. A request without one (a `GET`)
 * is complete once its head is read, even before Node flags it so: answering it early (a `503`
 * under load) keeps its connection open, and its client does not pay for a new one.
 */
export function bodyStillArriving(raw: FastifyRequest['raw']): boolean {
  if (raw.complete) return false;
  const length = raw.headers['content-length'];
  return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Connections whose request was answered before its body was read, while Node reads and drops the
 * rest of that body (it does so for a request nobody read once its answer is sent). Their receive
 * timeout closes them without a second answer.
 */
export const draining = new WeakSet<Socket>();

/**
 * How far past the route's limit an announced body is still read and dropped after an early
 * answer: an upload a few times too large (a 12 MiB photo against 5 MiB) gets its `413` rather
 * than a broken pipe, while a body of any size beyond costs no more than a read of this many
 * times the limit (within the receive timeout) before its connection goes.
 */
export const DRAIN_LIMIT_FACTOR = 4;

/**
 * Whether the rest of a body still arriving after an early answer is read and dropped rather than
 * the connection closed: a known route, nothing of the body read yet (Node then drops it itself),
 * a `Content-Length` within {@link DRAIN_LIMIT_FACTOR} times the route's limit, and an answer other
 * than `503` (under overload the connection goes).
 */
export function drainable(request: FastifyRequest, status: number): boolean {
  const raw = request.raw;
  if (request.is404 || status === 503 || raw.readableFlowing !== null) return false;
  if (raw.headers['transfer-encoding'] !== undefined) return false;
  const limit = request.routeOptions.config.maxBodyBytes ?? request.routeOptions.bodyLimit;
  const length = Number(raw.headers['content-length']);
  if (!(Number.isSafeInteger(length) && length <= DRAIN_LIMIT_FACTOR * limit)) return false;
  raw.once('end', () => draining.delete(raw.socket));
  return true;
}

/**
 * Fastify options of the receive timeout: Node answers a request (head and body) not received
 * within `ms`, checking every `ms / 4` (Node's default check interval is 30 s; its headers
 * timeout must not exceed the request timeout, or the check does not run).
 */
export function receiveTimeoutOptions(ms: number) {
  return {
    requestTimeout: ms,
    http: {
      requestTimeout: ms,
      headersTimeout: ms,
      connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(ms / 4))),
    },
    clientErrorHandler: answerClientError,
  };
}

const CLIENT_ERRORS: Record<string, [number, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request was not received in time'],
  HPE_HEADER_OVERFLOW: [431, 'The request headers are too large'],
};

/**
 * Requests Node cannot hand to Fastify (not received in time, unparsable): answered in the
 * documented error shape, then the connection is closed.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // Its request was answered already: the rest of its body did not come in time.
  if (draining.has(socket)) return void socket.destroy();
  const [status, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'The request is malformed'];
  const body = JSON.stringify({ error: message });
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nconnection: close\r\n` +
        'content-type: application/json; charset=utf-8\r\nx-content-type-options: nosniff\r\n' +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  socket.destroy();
}

/** Deepest nesting of arrays and objects a JSON body may have (our payloads need 3). */
export const MAX_JSON_DEPTH = 32;

/** How deeply `text` (JSON) nests arrays and objects: one pass, no recursion. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** JSON is UTF-8 (RFC 8259), whatever the `charset` label says; a byte that is not is refused. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * JSON bodies are parsed by Fastify's own parser (prototype poisoning refused), after two checks
 * (an empty body is no body):
 * the bytes are UTF-8 (a stray byte was stored as U+FFFD), and they nest at most
 * {@link MAX_JSON_DEPTH} levels: deeper data is no payload of ours, and every later walk over it
 * (validation, the NUL check, the database, serialisation) would recurse.
 */
function limitJsonDepth(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, bytes, done) => {
    // A content type with no body at all (a client that sets it on every request) is no body.
    if ((bytes as Buffer).length === 0) return done(null, undefined);
    let body: string;
    try {
      body = utf8.decode(bytes as Buffer);
    } catch {
      return done(badRequest('The request body is not valid UTF-8'), undefined);
    }
    if (jsonDepth(body) > MAX_JSON_DEPTH)
      return done(badRequest(`The request body nests deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    parse(request, body, done);
  });
}
