/**
 * An agent's side of MCP: mounts `marketplace-mcp` (read-only, over stdio) with the MCP SDK's
 * client, discovers the tools, and works through a task with them — a report of every collab —
 * the way a model would: read each tool's schema, call it, and act on an `isError` result's hint.
 * There is no model here: the plan is fixed, so it runs anywhere and its output can be checked.
 *
 * Run (a server is listening at MARKETPLACE_BASE_URL):
 *   MARKETPLACE_TOKEN=mkt_… MARKETPLACE_BASE_URL=http://127.0.0.1:3000 pnpm --filter examples agent-mcp
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const token = process.env.MARKETPLACE_TOKEN;
const baseUrl = process.env.MARKETPLACE_BASE_URL;
if (!token || !baseUrl) {
  console.error('Set MARKETPLACE_TOKEN and MARKETPLACE_BASE_URL');
  process.exit(2);
}

// The installed `marketplace-mcp` (its package's `bin`), mounted as an MCP host would: inside this
// repository, from its TypeScript source, so that nothing needs building first.
const require = createRequire(import.meta.url);
const mcpPackage = require.resolve('@app/mcp/package.json');
const source = join(dirname(mcpPackage), 'src/bin.ts');
const { bin } = require(mcpPackage) as { bin: Record<string, string> };
const server = existsSync(source)
  ? ['--conditions=@app/source', '--import', 'tsx', source]
  : [join(dirname(mcpPackage), bin['marketplace-mcp'] as string)];
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [...server, '--read-only'],
  env: {
    ...(process.env as Record<string, string>),
    MARKETPLACE_TOKEN: token,
    MARKETPLACE_BASE_URL: baseUrl,
  },
  stderr: 'inherit',
});
const client = new Client({ name: 'collab-report-agent', version: '1.0.0' });
try {
  await client.connect(transport);
} catch (error) {
  // The server said why on stderr (inherited); this says what could not be done.
  console.error(`marketplace-mcp could not be started: ${(error as Error).message}`);
  process.exit(1);
}

interface ToolError {
  status: number | null;
  errors?: Record<string, string[]>;
  hint?: string;
}

/** Calls a tool; an API failure comes back as a result the agent reads, not as an exception. */
async function use<T>(
  name: string,
  args: Record<string, unknown> = {},
): Promise<T | (ToolError & { failed: true })> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) {
    const text = (result.content[0] as { text: string }).text;
    return { ...(JSON.parse(text) as ToolError), failed: true };
  }
  return result.structuredContent as T;
}

try {
  const { tools } = await client.listTools();
  console.log(
    `Mounted marketplace-mcp: ${tools.length} tools, all read-only: ${tools.every((t) => t.annotations?.readOnlyHint)}`,
  );
  const collabsList = tools.find((t) => t.name === 'collabs_list');
  console.log(`collabs_list takes: ${Object.keys(collabsList?.inputSchema.properties ?? {}).join(', ')}`);

  type Page<T> = { data: T[]; page: number; total_pages: number; total_count: number };
  const orgs = await use<Page<{ id: string; name: string }>>('organizations_list', { max_items: 100 });
  if ('failed' in orgs) {
    console.error(`organizations_list failed (${orgs.status}): ${orgs.hint}`);
    process.exitCode = 1;
  } else {
    let total = 0;
    for (const org of orgs.data) {
      const collabs = await use<Page<{ name: string; state: string }>>('collabs_list', {
        organization_id: org.id,
        max_items: 500, // the most one call returns; next_page goes on from there
      });
      if ('failed' in collabs) {
        console.log(`${org.name}: ${collabs.hint}`);
        continue;
      }
      total += collabs.total_count;
      console.log(`${org.name}: ${collabs.total_count} collabs over ${collabs.total_pages} page(s)`);
      for (const collab of collabs.data.slice(0, 3)) console.log(`  - ${collab.name} [${collab.state}]`);
    }

    // A wrong id: the result says what went wrong and what to do, and the agent follows the hint.
    const first = orgs.data[0];
    if (first) {
      const wrong = await use<{ data: unknown }>('collabs_retrieve', {
        organization_id: first.id,
        id: 'AAAAAAAAAAAAAAAA',
      });
      if ('failed' in wrong) console.log(`A made-up collab id: ${wrong.status}, hint: ${wrong.hint}`);
    }
    console.log(`Report: ${total} collabs in ${orgs.total_count} organizations`);
  }
} finally {
  await client.close();
}
