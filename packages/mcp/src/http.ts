import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Request, Response } from 'express';

/**
 * Serves Streamable HTTP at `/mcp` on 127.0.0.1 (port 0: any free port), one MCP server per
 * session (sessions keep elicitation working across requests). `createMcpExpressApp` on a loopback
 * host validates the `Host` header: the SDK's DNS-rebinding protection; a page's `Origin` is
 * checked too (below), before the app (and its JSON parser) sees the request.
 */
export async function serveHttp(
  makeServer: () => McpServer,
  port: number,
): Promise<{ url: string; close: () => Promise<void> }> {
  const host = '127.0.0.1';
  const app = createMcpExpressApp({ host });
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  app.post('/mcp', async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      if (id !== undefined || !isInitializeRequest(req.body)) {
        res.status(400).json({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Bad Request: no valid session id' },
          id: null,
        });
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      await makeServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, req.body);
  });
  const bySession = async (req: Request, res: Response) => {
    const id = req.headers['mcp-session-id'];
    const transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      res.status(400).send('Invalid or missing session id');
      return;
    }
    await transport.handleRequest(req, res);
  };
  app.get('/mcp', bySession);
  app.delete('/mcp', bySession);

  const server = createServer((req, res) => {
    if (!refuseForeignOrigin(req, res)) app(req, res);
  });
  // A failed listen (a port in use) rejects.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://${host}:${actual}/mcp`,
    close: async () => {
      for (const transport of sessions.values()) await transport.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
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
