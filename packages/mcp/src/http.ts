import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { NextFunction, Request, Response } from 'express';

/**
 * Serves Streamable HTTP at `/mcp` on 127.0.0.1 (port 0: any free port), one MCP server per
 * session (sessions keep elicitation working across requests). `createMcpExpressApp` on a loopback
 * host validates the `Host` header: the SDK's DNS-rebinding protection; a page's `Origin` is
 * checked too (below).
 */
export async function serveHttp(
  makeServer: () => McpServer,
  port: number,
): Promise<{ url: string; close: () => Promise<void> }> {
  const host = '127.0.0.1';
  const app = createMcpExpressApp({ host });
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  app.use(refuseForeignOrigins);

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

  // Express 5 hands a failed listen (a port in use) to the callback.
  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(listening)));
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
 * browsers send no `Origin` and are not affected.
 */
function refuseForeignOrigins(req: Request, res: Response, next: NextFunction): void {
  const origin = req.headers.origin;
  if (origin === undefined || isLoopbackOrigin(origin)) {
    next();
    return;
  }
  res.status(403).json({
    jsonrpc: '2.0',
    error: { code: -32000, message: `Forbidden: the origin ${origin} may not call this server` },
    id: null,
  });
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const { protocol, hostname } = new URL(origin);
    return (protocol === 'http:' || protocol === 'https:') && LOOPBACK_HOSTS.has(hostname);
  } catch {
    return false; // `null` (a sandboxed or file page) and anything unparsable
  }
}
