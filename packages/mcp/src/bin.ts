#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { VERSION } from '@app/sdk';
import { operations } from '@app/sdk/operations';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { serveHttp } from './http.js';
import { createServer } from './server.js';

const usage = `Usage: marketplace-mcp [options]

An MCP server for the creator-marketplace API: one tool per endpoint.
Serves MCP over stdio, or over Streamable HTTP on 127.0.0.1 with --http.

Options:
  --http              serve Streamable HTTP at http://127.0.0.1:<port>/mcp instead of stdio
  --port N            the HTTP port (default 3333; 0 picks a free one)
  --read-only         expose only the read tools
  --tools a,b         expose only these groups (${[...new Set(operations.map((op) => op.sdkPath[0]))].join(', ')})
  --yes               run deletes and transitions without asking the user to confirm
  -h, --help          this help
  -v, --version       the version

Environment:
  MARKETPLACE_TOKEN     the access token (mkt_…)
  MARKETPLACE_BASE_URL  the API's address, e.g. http://127.0.0.1:3000
`;

function fail(message: string): never {
  process.stderr.write(`marketplace-mcp: ${message}\n\n${usage}`);
  process.exit(2);
}

let values: ReturnType<typeof parse>['values'];
function parse() {
  return parseArgs({
    options: {
      http: { type: 'boolean' },
      port: { type: 'string' },
      'read-only': { type: 'boolean' },
      tools: { type: 'string' },
      yes: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
    strict: true,
  });
}
try {
  values = parse().values;
} catch (error) {
  fail((error as Error).message);
}
if (values.help) {
  process.stdout.write(usage);
  process.exit(0);
}
if (values.version) {
  process.stdout.write(`${VERSION}\n`);
  process.exit(0);
}

const groups = values.tools
  ?.split(',')
  .map((g) => g.trim())
  .filter(Boolean);
const known = new Set(operations.map((op) => op.sdkPath[0]));
if (groups?.length === 0) fail(`--tools needs at least one group (${[...known].join(', ')})`);
for (const group of groups ?? []) if (!known.has(group)) fail(`unknown tool group "${group}"`);
const port = values.port === undefined ? 3333 : Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a port number`);

const token = process.env.MARKETPLACE_TOKEN;
const baseUrl = process.env.MARKETPLACE_BASE_URL;
if (!token || !baseUrl) fail('set MARKETPLACE_TOKEN and MARKETPLACE_BASE_URL');

const make = () =>
  createServer({
    token,
    baseUrl,
    readOnly: values['read-only'] ?? false,
    ...(groups && { groups }),
    yes: values.yes ?? false,
  });

if (values.http) {
  const { url, close } = await serveHttp(make, port).catch((error: NodeJS.ErrnoException) => {
    const why = error.code === 'EADDRINUSE' ? 'the port is in use' : error.message;
    process.stderr.write(`marketplace-mcp: cannot listen on 127.0.0.1:${port}: ${why}\n`);
    process.exit(1);
  });
  // stdout is free in HTTP mode; the line says where to connect.
  process.stdout.write(`marketplace-mcp listening on ${url}\n`);
  const stop = () => {
    void close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} else {
  await make().connect(new StdioServerTransport());
}
