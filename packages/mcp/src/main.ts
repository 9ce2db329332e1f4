import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ClientOptionError, VERSION } from '@app/sdk';
import { operations } from '@app/sdk/operations';
import { defaultAllowDirs } from './files.js';
import { serveHttp } from './http.js';
import { createServer } from './server.js';
import { StdioTransport } from './stdio.js';
import { clip } from './text.js';

const usage = `Usage: marketplace-mcp [options]

An MCP server for the creator-marketplace API: one tool per endpoint.
Serves MCP over stdio, or over Streamable HTTP on 127.0.0.1 with --http.

Options:
  --http              serve Streamable HTTP at http://127.0.0.1:<port>/mcp instead of stdio
  --port N            with --http: the port, 0 to 65535 in decimal (default 3333; 0 picks a free one)
  --auth-token S      with --http: the bearer secret clients must send (at least 16 characters;
                      default MARKETPLACE_MCP_AUTH_TOKEN, else a random one printed once on stderr)
  --allow-dir D       a directory file arguments (logo, banner_image) may be read from; repeatable
                      (default: the working directory, unless it is / or the home directory:
                      then none)
  --read-only         expose only the read tools
  --tools a,b         expose only these groups (${[...new Set(operations.map((op) => op.sdkPath[0]))].join(', ')});
                      repeated, the lists are merged; organizations_list stays with collabs,
                      campaigns or members (it gives their organization_id)
  --yes               run deletes and transitions without asking the user to confirm (without it
                      they ask through elicitation, and are refused when the host cannot ask)
  --full-output-schemas  list each tool's whole output schema (default: compact, naming the
                      resource's schema, which resources/read of marketplace://schemas/<name>
                      gives whole; tools/list stays under 60 KB)
  -h, --help          this help
  -v, --version       the version

Environment:
  MARKETPLACE_TOKEN     the access token (mkt_…)
  MARKETPLACE_BASE_URL  the API's address, e.g. http://127.0.0.1:3000
  MARKETPLACE_MCP_AUTH_TOKEN  with --http: the bearer secret (--auth-token wins)
`;

/** A usage error: exit 2, the message and where to find help (as the CLI says it), not the whole help. */
function fail(message: string): never {
  process.stderr.write(`marketplace-mcp: ${message}\nRun \`marketplace-mcp --help\` for usage.\n`);
  process.exit(2);
}

let values: ReturnType<typeof parse>['values'];
function parse() {
  return parseArgs({
    options: {
      http: { type: 'boolean' },
      port: { type: 'string' },
      'auth-token': { type: 'string' },
      'allow-dir': { type: 'string', multiple: true },
      'read-only': { type: 'boolean' },
      // Repeated, the lists are merged (`--tools collabs --tools me` is `--tools collabs,me`).
      tools: { type: 'string', multiple: true },
      yes: { type: 'boolean' },
      'full-output-schemas': { type: 'boolean' },
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
  ?.flatMap((list) => list.split(','))
  .map((g) => g.trim())
  .filter(Boolean);
const known = new Set(operations.map((op) => op.sdkPath[0]));
if (groups?.length === 0) fail(`--tools needs at least one group (${[...known].join(', ')})`);
for (const group of groups ?? [])
  if (!known.has(group)) fail(`unknown tool group "${group}" (the groups: ${[...known].join(', ')})`);
if (values.port !== undefined && !values.http) fail('--port needs --http');
// Decimal digits only: `Number` would take "" as 0 and "0x1F90" as 8080.
const port = values.port === undefined ? 3333 : /^\d{1,5}$/.test(values.port) ? Number(values.port) : -1;
if (port < 0 || port > 65535)
  fail(
    `--port must be a decimal port number from 0 to 65535 (0 picks a free one), not ${JSON.stringify(values.port)}`,
  );

if (values['auth-token'] !== undefined && !values.http) fail('--auth-token needs --http');
const given = values['auth-token'] ?? process.env.MARKETPLACE_MCP_AUTH_TOKEN;
if (values.http && given !== undefined && given.length < 16)
  fail('the bearer secret (--auth-token, MARKETPLACE_MCP_AUTH_TOKEN) needs at least 16 characters');
const allowDirs = (values['allow-dir'] ?? defaultAllowDirs()).map((dir) => resolve(dir));
for (const dir of allowDirs)
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) fail(`--allow-dir ${dir} is not a directory`);

const token = process.env.MARKETPLACE_TOKEN;
const baseUrl = process.env.MARKETPLACE_BASE_URL;
// The one that is missing is named.
if (!token && !baseUrl) fail('set MARKETPLACE_TOKEN and MARKETPLACE_BASE_URL');
if (!token) fail('set MARKETPLACE_TOKEN (the access token, mkt_…)');
if (!baseUrl) fail("set MARKETPLACE_BASE_URL (the API's address, e.g. http://127.0.0.1:3000)");

const make = () =>
  createServer({
    token,
    baseUrl,
    readOnly: values['read-only'] ?? false,
    ...(groups && { groups }),
    yes: values.yes ?? false,
    outputSchemas: values['full-output-schemas'] ? 'full' : 'compact',
    allowDirs,
  });

// The SDK refuses a token a header cannot carry or a base URL that is not http(s): one line, exit 2.
try {
  make();
} catch (error) {
  if (!(error instanceof ClientOptionError)) throw error;
  fail(`${error.option === 'token' ? 'MARKETPLACE_TOKEN' : 'MARKETPLACE_BASE_URL'} ${error.problem}`);
}

if (values.http) {
  const authToken = given ?? randomBytes(32).toString('base64url');
  const { url, close } = await serveHttp(make, { port, authToken }).catch((error: NodeJS.ErrnoException) => {
    const why = error.code === 'EADDRINUSE' ? 'the port is in use' : error.message;
    process.stderr.write(`marketplace-mcp: cannot listen on 127.0.0.1:${port}: ${why}\n`);
    process.exit(1);
  });
  // stdout is free in HTTP mode; the line says where to connect.
  process.stdout.write(`marketplace-mcp listening on ${url}\n`);
  // Shown once, here: it is kept nowhere else.
  if (given === undefined)
    process.stderr.write(
      'marketplace-mcp: no --auth-token or MARKETPLACE_MCP_AUTH_TOKEN given; every request must send\n' +
        `Authorization: Bearer ${authToken}\n`,
    );
  const stop = () => {
    void close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} else {
  // Our transport, not the SDK's: it answers a line it cannot read as JSON-RPC 2.0 has it (-32700,
  // -32600; the SDK's dropped it with no answer) and skips a line over 10 MiB, answering it, where
  // the SDK's stopped reading stdin. Each is said on stderr too, which hosts log. Set before
  // `connect`, which chains its own handler onto this one.
  const transport = new StdioTransport();
  transport.onerror = (error) => {
    const why = clip(error.message.replace(/\s+/g, ' '), 300);
    process.stderr.write(`marketplace-mcp: a message on stdin could not be read: ${why}\n`);
  };
  await make().connect(transport);
}
