import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Request, Response } from 'express';

/**
 * Serves Streamable HTTP at `/mcp` on 127.0.0.1 (port 0: any free port), one MCP server per
 * session (sessions keep elicitation working across requests). `createMcpExpressApp` on a loopback
 * host validates the `Host` header: the SDK's DNS-rebinding protection.
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

  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(port, host, () => resolve(listening));
    listening.on('error', reject);
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
