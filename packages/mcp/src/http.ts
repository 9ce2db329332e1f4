import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { localhostHostValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import express, { type NextFunction, type Request, type Response } from 'express';
import { DEFAULT_MAX_FILE_BYTES } from './files.js';
import { clip } from './text.js';

/** A session with no request for this long is closed (decisions §6): 30 minutes. */
export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;
/**
 * At most this many live sessions; a new one closes the least recently used. A session holds an
 * MCP server and its SDK client (about 0.5 MiB each: 300 held 140 MiB), so 100 bound that to ~50 MiB.
 */
export const DEFAULT_MAX_SESSIONS = 100;
/**
 * The largest request body read: 8 MiB. A tool call may carry a file argument of up to 5 MiB (the
 * API's upload limit) as a `data:` URL, 6.7 MiB of base64, and its other arguments beside it;
 * over stdio it is taken whole, so over HTTP too (Express's default is 100 KB).
 */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
// A 5 MiB file as base64 and a megabyte for the rest of the call must fit.
if (Math.ceil(DEFAULT_MAX_FILE_BYTES / 3) * 4 + 1024 * 1024 > DEFAULT_MAX_BODY_BYTES)
  throw new Error('DEFAULT_MAX_BODY_BYTES is too small for a file argument as a data: URL');

export interface HttpOptions {
  /** The port on 127.0.0.1; 0 picks a free one. */
  port: number;
  /** The bearer secret every request must send (`Authorization: Bearer <authToken>`). */
  authToken: string;
  /**
   * A session with no request started (and no POST still running) for this long is closed;
   * default 30 minutes.
   */
  idleTimeoutMs?: number;
  /** The most live sessions; default {@link DEFAULT_MAX_SESSIONS}. */
  maxSessions?: number;
  /** The largest request body read, in bytes; default {@link DEFAULT_MAX_BODY_BYTES}. */
  maxBodyBytes?: number;
  /** The clock of the idle bound, in milliseconds (tests move it); default `Date.now`. */
  now?: () => number;
}

export interface HttpServer {
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  /** The sessions open now. */
  liveSessions: () => number;
  /** Closes every session, then the listener. */
  close: () => Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  /** When the last request started or ended. */
  lastSeen: number;
  /**
   * POSTs of this session still running (a tool call waiting on the API or on the user). Not the
   * GET stream: a client keeps one open for as long as it is connected, idle or not.
   */
  inFlight: number;
}

/** The answer the SDK's transport gives for a session id it does not hold (MCP: start a new session). */
const SESSION_NOT_FOUND = { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null };

/**
 * Serves Streamable HTTP at `/mcp` on 127.0.0.1, one MCP server per session (sessions keep
 * elicitation working across requests). Every request needs the bearer secret (checked in constant
 * time, before the body is read; `401` with `WWW-Authenticate: Bearer` otherwise). The `Host` header
 * must be a loopback name: the SDK's DNS-rebinding protection; a page's `Origin` is checked first
 * (below). Idle sessions are closed after `idleTimeoutMs`, and at most `maxSessions` live at once.
 * A body over `maxBodyBytes` or one that is no JSON is answered with a JSON-RPC error.
 */
export async function serveHttp(makeServer: () => McpServer, options: HttpOptions): Promise<HttpServer> {
  const {
    port,
    authToken,
    idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS,
    maxSessions = DEFAULT_MAX_SESSIONS,
    maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
    now = Date.now,
  } = options;
  if (authToken === '') throw new TypeError('serveHttp: authToken must not be empty');
  const host = '127.0.0.1';
  // What the SDK's `createMcpExpressApp` sets up on a loopback host (the `Host` check, then the
  // JSON body, so that a foreign `Host` is refused before its body is read), but with a body as
  // large as a tool call may be: the SDK's app keeps Express's 100 KB.
  const app = express();
  app.use(localhostHostValidation());
  app.use(express.json({ limit: maxBodyBytes }));
  // Express names itself in every answer (`X-Powered-By: Express`): nothing a client needs.
  app.disable('x-powered-by');
  // Map order is least recently used first: a session is moved to the end when it is used.
  const sessions = new Map<string, Session>();

  const closeSession = (id: string, session: Session) => {
    sessions.delete(id);
    // Closing the transport closes its MCP server too (the server's `onclose` chains onto it).
    void session.transport.close();
  };
  const sweep = () => {
    const time = now();
    for (const [id, session] of sessions)
      if (session.inFlight === 0 && time - session.lastSeen >= idleTimeoutMs) closeSession(id, session);
  };
  /** Marks a session used now, and, for a POST, busy until its answer ends. */
  const track = (id: string, session: Session, req: Request, res: Response) => {
    sessions.delete(id);
    sessions.set(id, session);
    session.lastSeen = now();
    if (req.method !== 'POST') return;
    session.inFlight += 1;
    res.on('close', () => {
      session.inFlight -= 1;
      session.lastSeen = now();
    });
  };
  const notFound = (res: Response) => {
    res.status(404).json(SESSION_NOT_FOUND);
  };

  app.post('/mcp', async (req, res) => {
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = sessions.get(id);
      if (!session) return notFound(res);
      track(id, session, req, res);
      await session.transport.handleRequest(req, res, req.body);
      return;
    }
    if (id !== undefined || !isInitializeRequest(req.body)) {
      res.status(400).json({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Bad Request: no valid session id' },
        id: null,
      });
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        // The cap: the least recently used sessions make room (they are idle or the oldest).
        for (const [oldId, old] of sessions) {
          if (sessions.size < maxSessions) break;
          closeSession(oldId, old);
        }
        const session: Session = { transport, lastSeen: now(), inFlight: 0 };
        sessions.set(sessionId, session);
        track(sessionId, session, req, res);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await makeServer().connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const bySession = async (req: Request, res: Response) => {
    const id = req.headers['mcp-session-id'];
    if (typeof id !== 'string') {
      res.status(400).json({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' },
        id: null,
      });
      return;
    }
    const session = sessions.get(id);
    if (!session) return notFound(res);
    track(id, session, req, res);
    await session.transport.handleRequest(req, res);
  };
  app.get('/mcp', bySession);
  app.delete('/mcp', bySession);
  // Express answers an error with an HTML page and its stack trace (install paths among them);
  // a client of this server reads JSON-RPC. Registered last: it gets the errors of all the above.
  app.use((error: BodyError, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const { status, code, message } = answerTo(error, maxBodyBytes);
    res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
  });

  const expected = digest(authToken);
  const server = createServer((req, res) => {
    if (refuseForeignOrigin(req, res) || refuseUnauthenticated(req, res, expected)) return;
    sweep();
    app(req, res);
  });
  // Idle sessions close even when no request comes to sweep them.
  const timer = setInterval(sweep, Math.min(idleTimeoutMs, 60_000));
  timer.unref();
  // A failed listen (a port in use) rejects.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    clearInterval(timer);
    throw error;
  });
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://${host}:${actual}/mcp`,
    liveSessions: () => sessions.size,
    close: async () => {
      clearInterval(timer);
      for (const session of [...sessions.values()]) await session.transport.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An error of Express's body parser (`http-errors`): its status and what went wrong. */
interface BodyError extends Error {
  status?: number;
  type?: string;
}

/**
 * The JSON-RPC error answering a request that failed before the MCP transport had it: a body too
 * large (`413`, -32000, as the SDK's transport answers one over its own bound), one that is no
 * JSON (-32700, as JSON-RPC has it), another bad request (a charset, an encoding, a body cut short:
 * -32600, the parser's own message); anything else is an internal error, said without details.
 */
function answerTo(error: BodyError, maxBodyBytes: number): { status: number; code: number; message: string } {
  const status = error.status ?? 500;
  if (error.type === 'entity.too.large')
    return {
      status,
      code: -32000,
      message: `Payload Too Large: a request body must not exceed ${maxBodyBytes} bytes (a file argument of up to ${DEFAULT_MAX_FILE_BYTES} bytes fits, as a data: URL)`,
    };
  if (error.type === 'entity.parse.failed')
    return { status, code: -32700, message: `Parse error: the body is not JSON (${clip(error.message)})` };
  if (status >= 400 && status < 500)
    return { status, code: -32600, message: `Invalid Request: ${clip(error.message)}` };
  return { status: 500, code: -32603, message: 'Internal error' };
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Answers `401` and returns `true` unless the request carries `Authorization: Bearer <secret>`.
 * The digests of both are compared (equal lengths, constant time), so neither the secret's bytes
 * nor its length leak through timing. The body is never read (the connection closes after the answer).
 */
function refuseUnauthenticated(req: IncomingMessage, res: ServerResponse, expected: Buffer): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
  if (match && timingSafeEqual(digest(match[1] as string), expected)) return false;
  // RFC 6750: no error code when no credential was sent; `invalid_token` for a wrong one.
  const challenge = req.headers.authorization
    ? 'Bearer realm="marketplace-mcp", error="invalid_token"'
    : 'Bearer realm="marketplace-mcp"';
  res.writeHead(401, {
    'content-type': 'application/json; charset=utf-8',
    'www-authenticate': challenge,
    connection: 'close',
  });
  res.end(
    JSON.stringify({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message:
          'Unauthorized: send Authorization: Bearer <secret> (--auth-token, MARKETPLACE_MCP_AUTH_TOKEN, or the one marketplace-mcp printed at start)',
      },
      id: null,
    }),
  );
  return true;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The MCP transport spec: an `Origin` that is present and not allowed gets `403`. A web page on
 * another site (a DNS-rebinding attack among them) sends its own origin, so only pages served from
 * this machine's loopback addresses (a local inspector, a local app) may call; clients that are not
 * browsers send no `Origin` and are not affected. Answers the 403 and returns `true` for a foreign one;
 * its body is never read (the connection closes after the answer).
 */
function refuseForeignOrigin(req: IncomingMessage, res: ServerResponse): boolean {
  const origin = req.headers.origin;
  if (origin === undefined || isLoopbackOrigin(origin)) return false;
  res.writeHead(403, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
  res.end(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32000, message: `Forbidden: the origin ${origin} may not call this server` },
      id: null,
    }),
  );
  return true;
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const { protocol, hostname } = new URL(origin);
    return (protocol === 'http:' || protocol === 'https:') && LOOPBACK_HOSTS.has(hostname);
  } catch {
    return false; // `null` (a sandboxed or file page) and anything unparsable
  }
}
