/**
 * The MCP server end to end: its bin as a child process (stdio, and Streamable HTTP), the MCP SDK's
 * own client, and the real server started in-process by the SDK's e2e harness.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Endpoint, publicEndpoints } from '@app/schemas';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, ElicitRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { download, png, runChild, type TestUser, useServer } from '../../sdk/test/e2e/harness.js';
import { createServer } from '../src/index.js';

const server = useServer();
// The built bin (vitest.config.ts builds it once for the run).
const bin = join(import.meta.dirname, '../dist/bin.js');
const { NODE_PATH: _hoisted, ...inherited } = process.env;
const nodeArgs = [bin];

let user: TestUser;
/** The bearer secret of the HTTP servers started here (`MARKETPLACE_MCP_AUTH_TOKEN`). */
const secret = 'mcp-e2e-secret-0123456789abcdef';
const bearer = { Authorization: `Bearer ${secret}` };
/** Scratch files (the logo); the bins may read file arguments from here (`--allow-dir`). */
const scratch = mkdtempSync(join(tmpdir(), 'mcp-e2e-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const env = () => ({
  ...(inherited as Record<string, string>),
  MARKETPLACE_TOKEN: user.token,
  MARKETPLACE_BASE_URL: server.url,
  MARKETPLACE_MCP_AUTH_TOKEN: secret,
});

/** The tool name the issue asks for, worked out here on its own: `me_` for `/me` paths, snake_case. */
const expectedName = (e: Endpoint & { name: string }) =>
  `${e.path.startsWith('/me/') ? 'me_' : ''}${e.name.replace('.', '_').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;

async function stdioClient(args: string[] = []): Promise<Client> {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [...nodeArgs, '--allow-dir', scratch, ...args],
      env: env(),
      stderr: 'pipe',
    }),
  );
  return client;
}

/** Starts `marketplace-mcp --http --port 0` and reads its URL from the line it prints. */
async function httpServer(args: string[] = []): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [...nodeArgs, '--http', '--port', '0', '--allow-dir', scratch, ...args],
    { env: env() },
  );
  let out = '';
  child.stdout.setEncoding('utf8');
  for await (const chunk of child.stdout) {
    out += chunk;
    const match = /listening on (http:\/\/\S+)/.exec(out);
    if (match) return { url: match[1] as string, child };
  }
  throw new Error(`marketplace-mcp --http did not start: ${out}`);
}

/** Runs the bin to its exit (a usage error, a port it cannot take). */
const runBin = (args: string[]) => runChild(process.execPath, [...nodeArgs, ...args], { env: env() });

/** POSTs `body` (`{}`) to the MCP endpoint with these headers (and the secret); resolves to the status. */
function postStatus(url: string, headers: Record<string, string>, body = '{}'): Promise<number | undefined> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...bearer, ...headers },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/** The client of the transport under test. */
let agent: Client;
const called = new Set<string>();

/** Calls a tool that must succeed; returns its structured content. */
async function call<T = Record<string, unknown>>(
  name: string,
  args: Record<string, unknown> = {},
  client = agent,
): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  called.add(name);
  if (result.isError) throw new Error(`${name}: ${text(result)}`);
  expect(JSON.parse(text(result))).toEqual(result.structuredContent);
  return result.structuredContent as T;
}

/** Calls a tool that must fail; returns the parsed error. */
async function failing(name: string, args: Record<string, unknown>, client = agent) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  called.add(name);
  expect(result.isError).toBe(true);
  return JSON.parse(text(result)) as {
    status: number | null;
    errors?: Record<string, string[]>;
    error?: string;
    hint?: string;
  };
}

interface Data<T = { id: string } & Record<string, unknown>> {
  data: T;
}

/** Connects the MCP SDK's client to `marketplace-mcp --http --port 0`. */
async function httpClient(
  url: string,
  options: ConstructorParameters<typeof Client>[1] = {},
): Promise<Client> {
  const client = new Client({ name: 'e2e-http', version: '1.0.0' }, options);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: bearer } }));
  return client;
}

// The same session over each transport, each with its own user (so the lists start empty).
describe.each(['stdio', 'Streamable HTTP'] as const)('over %s', (transport) => {
  let tools: Tool[];
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    user = await server.newUser(`Agent over ${transport}`);
    called.clear();
    // The MCP SDK's client cannot ask the user: deletes and transitions run with --yes here (the
    // confirmations are tested below, and refused without --yes in tools.test.ts).
    if (transport === 'stdio') agent = await stdioClient(['--yes']);
    else {
      const started = await httpServer(['--yes']);
      child = started.child;
      agent = await httpClient(started.url);
    }
    ({ tools } = await agent.listTools());
  });
  afterAll(async () => {
    await agent?.close();
    child?.kill('SIGTERM');
    if (child) await once(child, 'exit');
  });

  test('the tool list is the public endpoint table, with titles and descriptions from it', () => {
    expect(tools.map((t) => t.name)).toEqual(publicEndpoints.map(expectedName));
    for (const [i, e] of publicEndpoints.entries()) {
      expect(tools[i]?.title).toBe(e.summary);
      expect(tools[i]?.description).toBeTruthy();
    }
  });

  test('annotations are set on every tool; every tool has an object output schema', () => {
    for (const [i, e] of publicEndpoints.entries()) {
      const tool = tools[i] as Tool;
      expect(tool.annotations, tool.name).toEqual({
        title: e.summary,
        readOnlyHint: e.method === 'GET',
        // MCP: false means "only additive updates"; an update, a delete and a transition overwrite.
        destructiveHint: e.method !== 'GET' && !(e.method === 'POST' && e.status === 201),
        idempotentHint: e.method !== 'POST',
        // Collab create's `website` query has the API fetch a web page: the open world.
        openWorldHint: e.name === 'collabs.create',
      });
      expect(tool.outputSchema?.type).toBe('object');
      expect(Object.keys(tool.outputSchema?.properties ?? {})).toEqual(
        e.paginated ? ['data', 'page', 'total_pages', 'total_count', 'next_page', 'next_skip'] : ['data'],
      );
    }
    const list = tools.find((t) => t.name === 'collabs_list') as Tool;
    expect(Object.keys(list.inputSchema.properties ?? {})).toEqual([
      'organization_id',
      'page',
      'max_items',
      'skip',
    ]);
    expect(list.inputSchema.required).toEqual(['organization_id']);
    const update = tools.find((t) => t.name === 'me_address_update') as Tool;
    expect(Object.keys(update.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['address_one', 'city', 'country_code']),
    );
  });

  test('the schemas use only formats JSON Schema defines (a client validator knows them all)', () => {
    const known = new Set([
      'date-time',
      'date',
      'time',
      'duration',
      'email',
      'uri',
      'uuid',
      'ipv4',
      'ipv6',
      'hostname',
      'regex',
    ]);
    const formats = (node: unknown): string[] =>
      typeof node !== 'object' || node === null
        ? []
        : Object.entries(node).flatMap(([key, value]) =>
            key === 'format' && typeof value === 'string' ? [value] : formats(value),
          );
    for (const tool of tools)
      expect(
        [...formats(tool.inputSchema), ...formats(tool.outputSchema)].filter((f) => !known.has(f)),
        tool.name,
      ).toEqual([]);
  });

  test('organizations, with a logo uploaded from a file path', async () => {
    const dir = mkdtempSync(join(scratch, 'logo-'));
    const logo = png(4, 4, [200, 10, 10]);
    writeFileSync(join(dir, 'logo.png'), logo);
    const created = await call<Data>('organizations_create', { name: 'Acme', logo: join(dir, 'logo.png') });
    expect(created.data).toMatchObject({ name: 'Acme', privacy_setting: 'private' });
    const stored = await download(created.data.logo_url as string);
    expect(stored.bytes).toEqual(logo);

    const list = await call<{
      data: { id: string }[];
      page: number;
      total_pages: number;
      total_count: number;
    }>('organizations_list');
    expect(list).toMatchObject({ page: 1, total_pages: 1, total_count: 1, next_page: null });
    expect(list.data.map((o) => o.id)).toEqual([created.data.id]);
    expect((await call<Data>('organizations_retrieve', { id: created.data.id })).data.name).toBe('Acme');
    const updated = await call<Data>('organizations_update', { id: created.data.id, name: 'Acme 2' });
    expect(updated.data.name).toBe('Acme 2');

    const doomed = await call<Data>('organizations_create', { name: 'Gone' });
    expect(await call('organizations_delete', { id: doomed.data.id })).toEqual({ data: null });
    await expect(user.client.organizations.retrieve(doomed.data.id as never)).rejects.toMatchObject({
      status: 404,
    });
  });

  test('collabs: every call, transitions, one page or max_items across pages', async () => {
    const org = await user.client.organizations.create({ name: 'Collabs Inc' });
    const organization_id = org.id;
    const draft = await call<Data>('collabs_create', { organization_id, name: 'Launch' });
    expect(draft.data).toMatchObject({ name: 'Launch', state: 'draft' });
    expect((await call<Data>('collabs_retrieve', { organization_id, id: draft.data.id })).data.name).toBe(
      'Launch',
    );
    const updated = await call<Data>('collabs_update', { organization_id, id: draft.data.id, brief: '# Hi' });
    expect(updated.data.brief).toContain('<h1>Hi</h1>');
    expect((await call<Data>('collabs_submit', { organization_id, id: draft.data.id })).data.state).toBe(
      'submitted_for_review',
    );
    await server.admin.testHelpers.setCollabState(organization_id, draft.data.id as never, {
      state: 'published',
    });
    expect((await call<Data>('collabs_pause', { organization_id, id: draft.data.id })).data.state).toBe(
      'paused',
    );
    expect((await call<Data>('collabs_unpause', { organization_id, id: draft.data.id })).data.state).toBe(
      'published',
    );
    const other = await call<Data>('collabs_create', { organization_id });
    await call('collabs_delete', { organization_id, id: other.data.id });
    expect(await server.sql('select id from collabs where id = ?', [other.data.id])).toEqual([]);

    for (let i = 0; i < 21; i++) await user.client.collabs.create(organization_id, { name: `C${i}` });
    const first = await call<{ data: unknown[] }>('collabs_list', { organization_id });
    expect(first).toMatchObject({ page: 1, total_pages: 2, total_count: 22, next_page: 2 });
    expect(first.data).toHaveLength(20);
    const second = await call<{ data: unknown[] }>('collabs_list', { organization_id, page: 2 });
    expect(second).toMatchObject({ page: 2, total_pages: 2, next_page: null });
    expect(second.data).toHaveLength(2);
    const walked = await call<{ data: unknown[] }>('collabs_list', { organization_id, max_items: 21 });
    expect(walked.data).toHaveLength(21);
    expect(
      (await call<{ data: unknown[] }>('collabs_list', { organization_id, max_items: 100 })).data,
    ).toHaveLength(22);

    // Going on from next_page and next_skip after max_items misses nothing and repeats nothing.
    type Listed = { data: { id: string }[]; next_page: number | null; next_skip: number };
    const seen: string[] = [];
    let next: { page: number; skip: number } | null = { page: 1, skip: 0 };
    const pages: (number | null)[] = [];
    while (next !== null) {
      const listed: Listed = await call<Listed>('collabs_list', { organization_id, ...next, max_items: 6 });
      seen.push(...listed.data.map((item) => item.id));
      pages.push(listed.next_page);
      next = listed.next_page === null ? null : { page: listed.next_page, skip: listed.next_skip };
    }
    expect(seen).toHaveLength(22);
    expect(new Set(seen).size).toBe(22);
    expect(pages).toEqual([1, 1, 1, null]); // items 1–6, 7–12, 13–18 of page 1, then 19–20 and page 2's two
    const ended = await call<Listed>('collabs_list', { organization_id, max_items: 20 });
    expect(ended).toMatchObject({ next_page: 2, next_skip: 0 }); // ending with a page gives the next one
  });

  test('campaigns: every call; a 422 comes back as an isError result with the fields to fix', async () => {
    const org = await user.client.organizations.create({ name: 'Campaigns Inc' });
    const organization_id = org.id;
    const created = await call<Data>('campaigns_create', { organization_id, name: 'Reels', cpm_amount: 250 });
    const id = created.data.id;
    const refused = await failing('campaigns_publish', { organization_id, id });
    expect(refused.status).toBe(422);
    expect(refused.errors?.total_budget_amount).toBeDefined();
    // No tool sets the budget (funding is separate): a situation, not an argument to fix.
    expect(refused.hint).toMatch(/^Not possible as things are \(errors: total_budget_amount\): /);
    const invalid = await failing('campaigns_update', {
      organization_id,
      id,
      min_payout_amount: 500,
      max_payout_amount: 100,
    });
    expect(invalid.hint).toMatch(/^Fix these fields and call again: (min|max)_payout_amount/);

    await server.admin.testHelpers.createFunding(organization_id, id as never, { amount: 10_000 });
    expect((await call<{ data: unknown[] }>('campaigns_list', { organization_id })).data).toHaveLength(1);
    expect((await call<Data>('campaigns_retrieve', { organization_id, id })).data.name).toBe('Reels');
    await call('campaigns_update', { organization_id, id, platform_ids: ['youtube'] });
    expect((await call<Data>('campaigns_publish', { organization_id, id })).data.status).toBe('active');
    expect((await call<Data>('campaigns_pause', { organization_id, id })).data.status).toBe('paused');
    expect((await call<Data>('campaigns_resume', { organization_id, id })).data.status).toBe('active');
    const draft = await call<Data>('campaigns_create', { organization_id });
    await call('campaigns_delete', { organization_id, id: draft.data.id });
  });

  test('a 404 and a guard come back as isError results with hints; so does a bad argument', async () => {
    const org = await user.client.organizations.create({ name: 'Lookup' });
    const missing = await failing('collabs_retrieve', { organization_id: org.id, id: 'AAAAAAAAAAAAAAAA' });
    expect(missing).toMatchObject({ status: 404, hint: expect.stringMatching(/unknown or not visible/) });
    // A guard (errors on `base`): the hint says what stands in the way, not a field to fix.
    await user.client.collabs.create(org.id, { name: 'Keeps the org' });
    const guarded = await failing('organizations_delete', { id: org.id });
    expect(guarded.status).toBe(422);
    // What stands in the way is said by the API (`errors.base`); what to do first, by the tool's rule.
    expect(guarded.hint).toBe(
      "Not possible as things are (errors: base): no value of this call's arguments changes that. " +
        'It is refused when the organization still has a collab or a campaign (in any state) or an active subscription: delete its collabs and campaigns first (only a draft can be deleted).',
    );
    expect(guarded.errors?.base).toBeDefined();
    // A state guard on a field no tool takes (`state`) is not "fix these fields"; a 403 for a
    // state (not a role) does not blame the role.
    const draft = await user.client.collabs.create(org.id, { name: 'Still a draft' });
    const unpause = await failing('collabs_unpause', { organization_id: org.id, id: draft.id });
    expect(unpause.status).toBe(422);
    expect(unpause.hint).toMatch(/^Not possible as things are \(errors: state\): /);
    await user.client.collabs.submit(org.id, draft.id);
    const forbidden = await failing('collabs_delete', { organization_id: org.id, id: draft.id });
    expect(forbidden.status).toBe(403);
    expect(forbidden.hint).toMatch(/role .* or the state of the resource/);
    const bad = (await agent.callTool({ name: 'collabs_list', arguments: {} })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/organization_id/);
    // A guard on an argument (decisions §2: the owner's `role`) is not a field to fix either.
    const [owner] = await user.client.members.list(org.id).toArray();
    const demoted = await failing('members_update', {
      organization_id: org.id,
      id: owner?.id,
      role: 'member',
    });
    // The hint names the field; what stands in the way is said once, in `errors`.
    expect(demoted.hint).toBe(
      "Not possible as things are (errors: role): no value of this call's arguments changes that.",
    );
    expect(demoted.errors?.role?.[0]).toMatch(/^cannot be changed for the organization owner/);
    // A delete repeated after it took effect: the 404 says so, not "list the collection".
    const gone = await user.client.collabs.create(org.id, { name: 'Gone' });
    await call('collabs_delete', { organization_id: org.id, id: gone.id });
    const again = await failing('collabs_delete', { organization_id: org.id, id: gone.id });
    expect(again).toMatchObject({
      status: 404,
      hint: expect.stringMatching(/^Nothing to delete: it is gone already/),
    });
  });

  test('members', async () => {
    const org = await user.client.organizations.create({ name: 'Team' });
    const other = await server.newUser('Member');
    const membership = await server.admin.testHelpers.addMember(org.id, {
      user_id: other.user.id,
      role: 'member',
    });
    const list = await call<{ data: { id: string }[] }>('members_list', { organization_id: org.id });
    expect(list.data.map((m) => m.id)).toContain(membership.id);
    const promoted = await call<Data>('members_update', {
      organization_id: org.id,
      id: membership.id,
      role: 'admin',
    });
    expect(promoted.data.role).toBe('admin');
    await call('members_delete', { organization_id: org.id, id: membership.id });
    expect((await user.client.members.list(org.id)).data.map((m) => m.id)).not.toContain(membership.id);
  });

  test("the user's own resources", async () => {
    const account = await call<Data>('me_social_accounts_create', {
      platform_id: 'youtube',
      account_url: 'https://www.youtube.com/@acme-agent',
    });
    expect((await call<{ data: unknown[] }>('me_social_accounts_list')).data).toHaveLength(1);
    expect((await call<Data>('me_social_accounts_retrieve', { id: account.data.id })).data.uid).toBe(
      '@acme-agent',
    );
    await call('me_social_accounts_delete', { id: account.data.id });

    expect(await call('me_address_retrieve')).toEqual({ data: null });
    const address = await call<Data>('me_address_update', {
      address_one: '1 Main St',
      city: 'Oslo',
      state: 'Oslo',
      postal_code: '0150',
      country_code: 'no',
    });
    expect(address.data).toMatchObject({ city: 'Oslo', country_code: 'NO' });
    await call('me_address_delete');
    expect(await user.client.me.address.retrieve()).toBeNull();

    const settings = await call<Data>('me_notification_settings_update', {
      push_notifications_enabled: true,
    });
    expect(settings.data.push_notifications_enabled).toBe(true);
    expect((await call<Data>('me_notification_settings_retrieve')).data.push_notifications_enabled).toBe(
      true,
    );
    await server.admin.testHelpers.createNotification(user.user.id, {
      type: 'Demo::PingNotifier',
      params: { n: 1 },
      record_type: 'Demo::Ping',
      record_id: 'ping-1',
    });
    expect((await call<{ data: unknown[] }>('me_notifications_list')).data).toHaveLength(1);

    const token = await call<Data>('me_access_tokens_create', { description: 'agent', permission: 'read' });
    expect(token.data.token).toMatch(/^mkt_/);
    expect((await call<{ data: { id: string }[] }>('me_access_tokens_list')).data.map((t) => t.id)).toContain(
      token.data.id,
    );
    await call('me_access_tokens_delete', { id: token.data.id });
  });

  test('the OpenAPI document is a resource', async () => {
    const { resources } = await agent.listResources();
    expect(resources.map((r) => r.uri)).toContain('marketplace://openapi.json');
    const read = await agent.readResource({ uri: 'marketplace://openapi.json' });
    const doc = JSON.parse((read.contents[0] as { text: string }).text);
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/organizations/{organization_id}/collabs.json');
  });

  test('every tool was called', () => {
    expect([...called].sort()).toEqual(tools.map((t) => t.name).sort());
  });
});

describe('--read-only and --tools', () => {
  test('--read-only hides every write, --tools limits the groups', async () => {
    const client = await stdioClient(['--read-only', '--tools', 'collabs,me']);
    try {
      const { tools } = await client.listTools();
      // organizations_list stays: the collab tools' organization_id comes from it.
      const reads = publicEndpoints
        .filter(
          (e) =>
            e.method === 'GET' &&
            (e.path.startsWith('/me/') || e.name.startsWith('collabs.') || e.name === 'organizations.list'),
        )
        .map(expectedName);
      expect(tools.map((t) => t.name)).toEqual(reads);
      expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
      // A tool that is not listed is unknown to the host: a protocol error, as the MCP spec says.
      await expect(client.callTool({ name: 'collabs_create', arguments: {} })).rejects.toThrow(
        /Tool collabs_create is not exposed: the server runs with --read-only/,
      );
    } finally {
      await client.close();
    }
  });

  test('--tools given twice exposes both lists of groups', async () => {
    const client = await stdioClient(['--tools', 'campaigns', '--tools', 'members,me']);
    try {
      const groups = new Set((await client.listTools()).tools.map((t) => t.name.split('_')[0]));
      // organizations: its list stays, for the organization_id of the others.
      expect([...groups].sort()).toEqual(['campaigns', 'me', 'members', 'organizations']);
    } finally {
      await client.close();
    }
  });

  test('a revoked token is a 401 result with its hint', async () => {
    const revoked = await server.newUser('Revoked');
    await revoked.client.me.accessTokens.delete(
      (await revoked.client.me.accessTokens.list()).data[0]?.id as never,
    );
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await createServer({ token: revoked.token, baseUrl: server.url }).connect(a);
    await client.connect(b);
    const result = (await client.callTool({ name: 'organizations_list', arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.parse(text(result))).toMatchObject({
      status: 401,
      hint: expect.stringMatching(/missing, revoked/),
    });
    // A read tool's 401 is not the token's permission: no word of --read-only.
    expect(JSON.parse(text(result)).hint).not.toContain('--read-only');
    await client.close();
  });

  test("a write tool's 401 says that a read token goes with --read-only (the model was offered tools it could not use)", async () => {
    const reader = await server.newUser('Reader');
    const read = await reader.client.me.accessTokens.create({ description: 'agent', permission: 'read' });
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await createServer({ token: read.token, baseUrl: server.url }).connect(a);
    await client.connect(b);
    const listed = (await client.callTool({ name: 'organizations_list', arguments: {} })) as CallToolResult;
    expect(listed.isError).toBeFalsy();
    const result = (await client.callTool({
      name: 'organizations_create',
      arguments: { name: 'Not with a read token' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    const { status, hint } = JSON.parse(text(result));
    expect(status).toBe(401);
    expect(hint).toMatch(/read-only: use a valid token/);
    expect(hint).toMatch(
      /If this server's token is a read token, the user can restart the MCP server with --read-only, so that only the tools it can use are listed\.$/,
    );
    await client.close();
  });
});

describe('confirmations and the Host check, over Streamable HTTP', () => {
  let child: ChildProcess;
  let url: string;
  let client: Client;
  let answer: 'accept' | 'decline' = 'decline';
  const asked: string[] = [];

  beforeAll(async () => {
    ({ url, child } = await httpServer());
    client = new Client({ name: 'e2e-http', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message);
      return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: bearer } }),
    );
  });
  afterAll(async () => {
    await client?.close();
    child?.kill('SIGTERM');
    if (child) await once(child, 'exit');
  });

  test('a delete asks the user first, and a refusal changes nothing', async () => {
    const org = await call<Data>('organizations_create', { name: 'Over HTTP' }, client);
    const declined = await failing('organizations_delete', { id: org.data.id }, client);
    expect(declined.error).toMatch(/did not confirm/);
    // The question names what is there, not only its id.
    expect(asked).toEqual([`Delete an organization (owner only): "Over HTTP" (id=${org.data.id})?`]);
    expect((await user.client.organizations.retrieve(org.data.id as never)).id).toBe(org.data.id);
    answer = 'accept';
    await call('organizations_delete', { id: org.data.id }, client);
    expect(asked).toHaveLength(2);

    // Transitions ask too.
    const other = await user.client.organizations.create({ name: 'Transitions' });
    const collab = await user.client.collabs.create(other.id, { name: 'Ask first' });
    answer = 'decline';
    await failing('collabs_submit', { organization_id: other.id, id: collab.id }, client);
    expect(asked[2]).toBe(
      `Submit a draft collab for review: "Ask first", draft (organization_id=${other.id}, id=${collab.id})?`,
    );
    // What is not there is a 404, said without asking.
    const missing = await failing(
      'collabs_submit',
      { organization_id: other.id, id: 'AAAAAAAAAAAAAAAA' },
      client,
    );
    expect(missing.status).toBe(404);
    expect(asked).toHaveLength(3);
    expect((await user.client.collabs.retrieve(other.id, collab.id)).state).toBe('draft');
    await expect(user.client.organizations.retrieve(org.data.id as never)).rejects.toMatchObject({
      status: 404,
    });
  });

  test('minting an access token asks the user first, saying what it would allow; a refusal makes none', async () => {
    const count = async () => (await user.client.me.accessTokens.list().toArray()).length;
    const before = await count();
    answer = 'decline';
    const declined = await failing(
      'me_access_tokens_create',
      { description: 'for the agent', permission: 'write' },
      client,
    );
    expect(declined.error).toMatch(/did not confirm/);
    expect(asked.at(-1)).toBe(
      'Create an access token (its value is shown once) (permission=write, description="for the agent")?',
    );
    expect(await count()).toBe(before);
    answer = 'accept';
    await call('me_access_tokens_create', { description: 'for the agent', permission: 'read' }, client);
    expect(await count()).toBe(before + 1);
    answer = 'decline';
  });

  test('a question names what it acts on as the user knows it: a member by name and email, a social account by platform and URL, an address by its lines, a token by its description with a warning', async () => {
    answer = 'decline';
    const org = await user.client.organizations.create({ name: 'Labels' });
    const other = await server.newUser('Label Member');
    const membership = await server.admin.testHelpers.addMember(org.id, {
      user_id: other.user.id,
      role: 'member',
    });
    await failing('members_delete', { organization_id: org.id, id: membership.id }, client);
    expect(asked.at(-1)).toBe(
      `Remove a member, or leave the organization: "Label Member" <${other.user.email}> (organization_id=${org.id}, id=${membership.id})?`,
    );

    const account = await user.client.me.socialAccounts.create({
      platform_id: 'youtube',
      account_url: 'https://www.youtube.com/@label-account',
    });
    await failing('me_social_accounts_delete', { id: account.id }, client);
    expect(asked.at(-1)).toBe(
      `Disconnect a social account: youtube "${account.account_url}", ${account.status} (id=${account.id})?`,
    );

    // An address's `state` is its region, not a status.
    await user.client.me.address.update({
      address_one: '1 Main St',
      city: 'Springfield',
      state: 'IL',
      postal_code: '62701',
      country_code: 'us',
    });
    await failing('me_address_delete', {}, client);
    expect(asked.at(-1)).toBe('Delete the shipping address: "1 Main St, Springfield, IL, 62701, US"?');

    // There is no show endpoint for a token: it is found in its list. Whether it is the token this
    // server runs with cannot be told (the API keeps no value), so the question says what that would do.
    const token = await user.client.me.accessTokens.create({ description: 'old laptop', permission: 'read' });
    await failing('me_access_tokens_delete', { id: token.id }, client);
    expect(asked.at(-1)).toBe(
      `Revoke an access token: "old laptop" (id=${token.id})? If it is the token this server runs with (MARKETPLACE_TOKEN), every later call fails (401) until the server is restarted with another.`,
    );
  });

  test('DNS-rebinding protection: a foreign Host header is refused', async () => {
    expect(await postStatus(url, { Host: 'evil.example' })).toBe(403);
    // Without the secret it is refused too (the secret is checked first).
    expect(await postStatus(url, { Host: 'evil.example', Authorization: '' })).toBe(401);
  });

  test('DNS-rebinding protection: a foreign Origin is refused (MCP transport spec); a loopback one is not', async () => {
    expect(await postStatus(url, { Origin: 'http://evil.example' })).toBe(403);
    expect(await postStatus(url, { Origin: 'null' })).toBe(403);
    // Not refused: `{}` is no initialize request, so the transport's own 400 follows.
    expect(await postStatus(url, { Origin: 'http://localhost:6274' })).toBe(400);
    expect(await postStatus(url, { Origin: 'http://127.0.0.1:5173' })).toBe(400);
    expect(await postStatus(url, {})).toBe(400);
  });

  test('a foreign Origin is refused before its body is read: a broken body is 403 too, not 400', async () => {
    expect(await postStatus(url, { Origin: 'http://evil.example' }, '{')).toBe(403);
    expect(await postStatus(url, {}, '{')).toBe(400);
  });

  test('a port already taken is an error and exit 1, not a "listening" line', async () => {
    const { port } = new URL(url);
    const taken = await runBin(['--http', '--port', port]);
    expect(taken.code).toBe(1);
    expect(taken.stdout).toBe('');
    expect(taken.stderr).toBe(`marketplace-mcp: cannot listen on 127.0.0.1:${port}: the port is in use\n`);
  });

  test('a base URL that is not an http(s) URL, or a token a header cannot carry, is one line and exit 2, not a stack trace', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [
        { MARKETPLACE_BASE_URL: 'not a url' },
        'marketplace-mcp: MARKETPLACE_BASE_URL is not an absolute URL: "not a url"',
      ],
      [
        { MARKETPLACE_BASE_URL: 'ftp://x' },
        'marketplace-mcp: MARKETPLACE_BASE_URL must be an http or https URL, not ftp:',
      ],
      // An empty query or fragment too: the paths would follow the `#` or the `?`.
      [
        { MARKETPLACE_BASE_URL: 'http://127.0.0.1:4102/docs#' },
        'marketplace-mcp: MARKETPLACE_BASE_URL must not have a query or fragment: http://127.0.0.1:4102/docs#',
      ],
      [
        { MARKETPLACE_BASE_URL: 'http://127.0.0.1:4102/?' },
        'marketplace-mcp: MARKETPLACE_BASE_URL must not have a query or fragment: http://127.0.0.1:4102/?',
      ],
      [
        { MARKETPLACE_TOKEN: `${user.token}\nsecond line` },
        'marketplace-mcp: MARKETPLACE_TOKEN holds a character an HTTP header cannot carry',
      ],
    ];
    for (const [vars, message] of cases) {
      const run = await runChild(process.execPath, nodeArgs, { env: { ...env(), ...vars } });
      expect(run.code).toBe(2);
      expect(run.stderr.split('\n')[0]).toContain(message);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(run.stderr).not.toContain(user.token);
    }
  });

  test('--tools with no group is a usage error (exit 2), not a server without tools', async () => {
    for (const tools of ['', ',', ' , ']) {
      const run = await runBin(['--tools', tools]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^marketplace-mcp: --tools needs at least one group/);
    }
  });

  test('--yes (in-process) runs a delete without asking', async () => {
    const inProcess = new Client({ name: 'e2e', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    inProcess.setRequestHandler(ElicitRequestSchema, async () => {
      throw new Error('asked despite --yes');
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await createServer({ token: user.token, baseUrl: server.url, yes: true }).connect(a);
    await inProcess.connect(b);
    const org = await user.client.organizations.create({ name: 'No questions' });
    await call('organizations_delete', { id: org.id }, inProcess);
    await expect(user.client.organizations.retrieve(org.id)).rejects.toMatchObject({ status: 404 });
    await inProcess.close();
  });
});
