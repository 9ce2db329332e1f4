/**
 * The tool list and the answers a model reads, in process (no API behind the server unless a test
 * starts its own): the size of `tools/list`, descriptions and inputs, argument errors, and the
 * deletes and transitions a host that cannot ask does not run.
 */
import { once } from 'node:events';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { publicEndpoints, RESOURCE_FIELD_DESCRIPTIONS } from '@app/schemas';
import { operations } from '@app/sdk/operations';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  type ListToolsResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { createServer, type ServerOptions } from '../src/index.js';

/** What these tests use of Ajv (the MCP SDK's own dependency). */
interface StrictAjv {
  compile: (schema: object) => (data: unknown) => boolean;
}

/** A stand-in API that counts the requests it gets and answers every one `204`. */
let api: Server;
let apiUrl: string;
const received: string[] = [];
/** The bodies of the requests, in the order of `received` (`''` for none). */
const bodies: string[] = [];
beforeAll(async () => {
  api = createHttpServer(async (req, res) => {
    received.push(`${req.method} ${req.url}`);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    bodies.push(Buffer.concat(chunks).toString());
    res.writeHead(204).end();
  });
  api.listen(0, '127.0.0.1');
  await once(api, 'listening');
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => api.close(() => resolve())));

async function connect(options: Partial<ServerOptions> = {}, capabilities = {}): Promise<Client> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await createServer({ token: 'mkt_test', baseUrl: apiUrl, ...options }).connect(a);
  const client = new Client({ name: 'tools-test', version: '1.0.0' }, { capabilities });
  await client.connect(b);
  return client;
}

const detail = (result: CallToolResult) =>
  JSON.parse((result.content[0] as { text: string }).text) as {
    status: number | null;
    errors?: Record<string, string[]>;
    error?: string;
    hint?: string;
  };

describe('tools/list', () => {
  let listed: ListToolsResult;
  beforeAll(async () => {
    listed = await (await connect()).listTools();
  });

  test('is under 60 KB serialized (output schemas name the OpenAPI component instead of repeating it)', async () => {
    const size = Buffer.byteLength(JSON.stringify(listed));
    expect(size).toBeLessThan(60 * 1024);
    // The whole schemas are still there for hosts that want them.
    const full = await (await connect({ outputSchemas: 'full' })).listTools();
    expect(Buffer.byteLength(JSON.stringify(full))).toBeGreaterThan(size);
    const show = listed.tools.find((t) => t.name === 'campaigns_retrieve');
    expect(show?.outputSchema).toMatchObject({
      properties: { data: { type: 'object', description: expect.stringContaining('`Campaign`') } },
    });
  });

  test('each resource schema an output schema names is a resource of its own, a few KB (it sent the model to the 240 KB OpenAPI document)', async () => {
    const client = await connect();
    const named = new Set<string>();
    for (const tool of listed.tools)
      for (const match of JSON.stringify(tool.outputSchema).matchAll(
        /resource (marketplace:\/\/schemas\/\w+)/g,
      ))
        named.add(match[1] as string);
    expect(named).toContain('marketplace://schemas/Campaign');
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining(['marketplace://openapi.json', ...named]),
    );
    const read = await client.readResource({ uri: 'marketplace://schemas/Campaign' });
    const text = (read.contents[0] as { text: string }).text;
    expect(Buffer.byteLength(text)).toBeLessThan(8 * 1024);
    const schema = JSON.parse(text);
    expect(schema).toMatchObject({ title: 'Campaign', type: 'object' });
    expect(schema.properties.status.enum).toEqual(['draft', 'active', 'paused', 'finished']);
    // Each field says what it means (RESOURCE_FIELD_DESCRIPTIONS): an amount, its unit.
    for (const [field, property] of Object.entries(
      schema.properties as Record<string, { description?: string }>,
    ))
      expect(property.description, field).toBe(RESOURCE_FIELD_DESCRIPTIONS.Campaign?.[field]);
    expect(schema.properties.cpm_amount.description).toContain('minor unit of `currency`');
    // A name that is not one is refused, saying which are.
    await expect(client.readResource({ uri: 'marketplace://schemas/Nope' })).rejects.toThrow(
      /^MCP error -32602: No schema Nope: resources\/list gives the schemas \(AccessToken, /,
    );
  });

  test("descriptions say what the tool does (the title's sentence first: some hosts pass a model only name and description), then the table's prose", () => {
    for (const [i, e] of publicEndpoints.entries()) {
      const tool = listed.tools[i];
      expect(tool?.title).toBe(e.summary);
      expect(tool?.description?.startsWith(`${e.summary}. `), tool?.name).toBe(true);
      expect(tool?.description, tool?.name).toMatch(/token/);
    }
    // What a model can do about a confirmation: --yes is the user's, not an argument.
    const asking = listed.tools.find((t) => t.name === 'collabs_delete')?.description;
    expect(asking).toMatch(
      /The user is asked to confirm before it runs \(through the host\)\. When the host cannot ask, the call is refused: only the user can let such calls run without asking, by restarting the server with --yes\.$/,
    );
    // Why deleting an organization is refused, and what to do first.
    expect(listed.tools.find((t) => t.name === 'organizations_delete')?.description).toContain(
      '`422` too when the organization still has a collab or a campaign (in any state) or an active subscription: delete its collabs and campaigns first (only a draft can be deleted).',
    );
    const submit = listed.tools.find((t) => t.name === 'collabs_submit')?.description;
    expect(submit).toMatch(/Admins of the organization/);
    expect(submit).toMatch(/not allowed from the current state is `422`/);
    expect(submit).toMatch(/returns the resource read again/);
    expect(listed.tools.find((t) => t.name === 'collabs_delete')?.description).toMatch(
      /Deleting it again is `404`.*data": null/,
    );
    // A tool takes arguments and gives a result: what HTTP clients are told (headers, redirects,
    // multipart forms) is not in its description, nor the header an argument stands for.
    for (const tool of listed.tools)
      expect(tool.description, tool.name).not.toMatch(
        /redirect: 'manual'|multipart|If-None-Match|in the headers|`Idempotency-Key`|`303 See Other`/,
      );
    expect(listed.tools.find((t) => t.name === 'organizations_create')?.description).toMatch(
      /`logo`: a PNG, JPEG, WebP or GIF image, as a file path or a `data:` URL/,
    );
  });

  test('every input schema refuses unknown properties (additionalProperties: false, as the server does), and every schema compiles in strict Ajv', () => {
    // The Ajv the MCP SDK validates with (its own dependency), in strict mode: a keyword or a
    // format it does not know fails, as it does in the MCP Inspector's --strict.
    const fromSdk = createRequire(import.meta.resolve('@modelcontextprotocol/sdk/validation/ajv'));
    const { Ajv } = fromSdk('ajv') as { Ajv: new (options: object) => StrictAjv };
    const addFormats = fromSdk('ajv-formats') as (ajv: StrictAjv) => void;
    const ajv = new Ajv({ strict: true, allErrors: true });
    addFormats(ajv);
    for (const tool of listed.tools) {
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
      expect(() => ajv.compile(tool.outputSchema ?? {}), tool.name).not.toThrow();
    }
    const validate = ajv.compile(listed.tools.find((t) => t.name === 'collabs_list')?.inputSchema ?? {});
    expect(validate({ organization_id: 'o1' })).toBe(true);
    expect(validate({ organization_id: 'o1', rloe: 'admin' })).toBe(false);
  });

  test('openWorldHint: only collabs_create reaches outside the marketplace (query_website has the API fetch any web page)', () => {
    const open = listed.tools.filter((t) => t.annotations?.openWorldHint === true).map((t) => t.name);
    expect(open).toEqual(['collabs_create']);
    expect(listed.tools.every((t) => typeof t.annotations?.openWorldHint === 'boolean')).toBe(true);
  });

  test('every input is described, with the enums and formats of the schemas', () => {
    let inputs = 0;
    for (const tool of listed.tools)
      for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        inputs++;
        expect((schema as { description?: string }).description, `${tool.name} ${name}`).toBeTruthy();
      }
    expect(inputs).toBeGreaterThan(120);
    const props = (name: string) =>
      listed.tools.find((t) => t.name === name)?.inputSchema.properties as Record<
        string,
        Record<string, unknown>
      >;
    expect(props('members_update').role).toMatchObject({ enum: ['member', 'admin'] });
    expect(props('me_access_tokens_create').permission).toMatchObject({ enum: ['read', 'write'] });
    expect(props('organizations_create').privacy_setting).toMatchObject({
      enum: ['public', 'private', 'restricted'],
    });
    expect(props('collabs_list').organization_id?.description).toMatch(/organization's id/);
    // Short sets inline; currencies and countries by the form of their codes (issue #29).
    expect(props('me_social_accounts_create').platform_id).toMatchObject({
      enum: ['youtube', 'x', 'twitch'],
    });
    expect(props('campaigns_create').currency).toMatchObject({ type: 'string', pattern: '^[A-Za-z]{3}$' });
    expect(props('collabs_create').countries).toMatchObject({
      items: { type: 'string', pattern: '^[A-Za-z]{2}$' },
    });
    // Whatever the schemas say of a field (enums, formats, patterns, limits) is the input's schema.
    const strip = ({ description: _d, $schema: _s, ...rest }: Record<string, unknown>) => rest;
    for (const op of operations)
      for (const [name, field] of Object.entries(op.input.shape)) {
        const listed = props(op.toolName)[name] as Record<string, unknown>;
        const own = z.toJSONSchema(field as z.ZodType, { io: 'input', target: 'draft-7' });
        expect(strip(listed), `${op.toolName} ${name}`).toEqual(strip(own as Record<string, unknown>));
      }
  });
});

describe('capabilities', () => {
  test('the resource list is not advertised as changing: it never does', async () => {
    const client = await connect();
    expect(client.getServerCapabilities()?.resources?.listChanged).not.toBe(true);
  });
});

describe('--tools and --read-only', () => {
  test('a model can always get the ids a tool takes: organizations_list stays with any organization-scoped group; the instructions name only what is exposed', async () => {
    const names = async (options: Partial<ServerOptions>) =>
      (await (await connect(options)).listTools()).tools.map((t) => t.name);
    for (const options of [
      { groups: ['collabs', 'me'] },
      { groups: ['members'], readOnly: true },
      { groups: ['campaigns'] },
    ]) {
      const listed = await names(options);
      expect(listed, JSON.stringify(options)).toContain('organizations_list');
      // Only the list: the other organization tools stay hidden.
      expect(listed.filter((n) => n.startsWith('organizations_'))).toEqual(['organizations_list']);
    }
    const me = await connect({ groups: ['me'] });
    expect((await me.listTools()).tools.map((t) => t.name)).not.toContain('organizations_list');
    expect(me.getInstructions()).not.toMatch(/organizations_list/);
    expect((await connect({ groups: ['collabs'] })).getInstructions()).toMatch(/organizations_list first/);
  });
});

describe('tools/call', () => {
  test('argument errors are the JSON of every failure, with a hint; nothing is sent', async () => {
    const client = await connect();
    const before = received.length;
    const missing = (await client.callTool({ name: 'collabs_list', arguments: {} })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect(detail(missing)).toMatchObject({
      status: null,
      errors: { organization_id: ['is required'] },
      hint: 'Fix these fields and call again: organization_id.',
    });
    const wrong = (await client.callTool({
      name: 'members_update',
      arguments: { organization_id: 'o1', id: 'm1', role: 'owner', rloe: 'admin' },
    })) as CallToolResult;
    const { errors, hint } = detail(wrong);
    expect(Object.keys(errors ?? {}).sort()).toEqual(['rloe', 'role']);
    expect(errors?.rloe?.[0]).toMatch(
      /is not an argument of this tool: did you mean role\? \(it takes organization_id, id, role\)/,
    );
    expect(hint).toMatch(/^Fix these fields and call again: /);
    // The list tools' own arguments say their range, not zod's wording.
    const range = (await client.callTool({
      name: 'collabs_list',
      arguments: { organization_id: 'o1', max_items: 0, skip: 20 },
    })) as CallToolResult;
    expect(detail(range).errors).toEqual({
      max_items: ['must be an integer from 1 to 500'],
      skip: ['must be an integer from 0 to 19'],
    });
    // A result goes whole into the model's context: at most 500 items (25 pages) a call.
    const many = (await client.callTool({
      name: 'collabs_list',
      arguments: { organization_id: 'o1', max_items: 501 },
    })) as CallToolResult;
    expect(detail(many).errors).toEqual({ max_items: ['must be an integer from 1 to 500'] });
    expect(received.length).toBe(before);
  });

  test('a number or a boolean given as text, as models often send them, is taken when it is exactly one: path, query, body and the list arguments; the request sends it typed', async () => {
    const client = await connect({ yes: true });
    const sent = async (name: string, args: Record<string, unknown>) => {
      const before = received.length;
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      // The stand-in answers 204, which a create or an update does not expect: only what was sent counts.
      expect(detail(result).errors, JSON.stringify(result)).toBeUndefined();
      return received.slice(before).map((line, i) => `${line} ${bodies[before + i]}`.trim());
    };
    expect(
      await sent('campaigns_create', {
        organization_id: 'o1',
        name: 'Spring',
        cpm_amount: '500',
        max_payout_amount: '1e3',
        min_payout_amount: '0',
      }),
    ).toEqual([
      'POST /organizations/o1/campaigns.json {"campaign":{"name":"Spring","cpm_amount":500,"min_payout_amount":0,"max_payout_amount":1000}}',
    ]);
    expect(
      await sent('collabs_create', {
        organization_id: 'o1',
        require_boosted_ads: 'true',
        requires_product_shipment: 'false',
      }),
    ).toEqual([
      'POST /organizations/o1/collabs.json {"collab":{"require_boosted_ads":true,"requires_product_shipment":false}}',
    ]);
    expect(await sent('me_notification_settings_update', { push_notifications_enabled: 'false' })).toEqual([
      'PATCH /me/notification_settings.json {"push_notifications_enabled":false}',
    ]);
    // The query's `page` was taken as text before; the list's own arguments were not.
    expect(
      await sent('collabs_list', { organization_id: 'o1', page: '2.0', max_items: '3', skip: '1' }),
    ).toEqual(['GET /organizations/o1/collabs.json?page=2']);
    // A string field stays a string, digits or not.
    expect(await sent('organizations_retrieve', { id: '42' })).toEqual(['GET /organizations/42.json']);
    // Said where a model reads it once, not in each of the 37 schemas (which stay number/boolean).
    expect(client.getInstructions()).toMatch(
      /a number or a boolean given as a JSON string \("500", "true"\) is taken/,
    );
  });

  test('any other text in a number or boolean argument is refused as before, with the same errors; nothing is sent', async () => {
    const client = await connect();
    const before = received.length;
    const errorsOf = async (name: string, args: Record<string, unknown>) =>
      detail((await client.callTool({ name, arguments: args })) as CallToolResult).errors;
    for (const text of [
      '5OO',
      '',
      ' 500',
      '500 ',
      '0x1F4',
      '+500',
      '.5',
      'Infinity',
      'NaN',
      '1e999',
      '2.5',
      '1,000',
    ])
      expect(await errorsOf('campaigns_create', { organization_id: 'o1', cpm_amount: text }), text).toEqual({
        cpm_amount: ['must be an integer'],
      });
    for (const text of ['True', 'FALSE', '1', '0', 'yes', '', ' true'])
      expect(
        await errorsOf('me_notification_settings_update', { push_notifications_enabled: text }),
        text,
      ).toEqual({ push_notifications_enabled: ['must be true or false'] });
    expect(
      await errorsOf('collabs_list', { organization_id: 'o1', page: '0', max_items: '501', skip: '-1' }),
    ).toEqual({
      page: ['must be a positive integer'],
      max_items: ['must be an integer from 1 to 500'],
      skip: ['must be an integer from 0 to 19'],
    });
    // The other way round is no value of a string field: a number stays refused there.
    expect(await errorsOf('organizations_retrieve', { id: 42 })).toEqual({ id: ['must be a string'] });
    expect(received.length).toBe(before);
  });

  test('a "1"/"0" flag (purge_logo, purge_banner_image) takes what a boolean takes, true/false as JSON or as text; the request sends the wire\'s "1"/"0"', async () => {
    const client = await connect();
    const sent = async (name: string, args: Record<string, unknown>) => {
      const before = received.length;
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      expect(detail(result).errors, JSON.stringify(result)).toBeUndefined();
      return received.slice(before).map((line, i) => `${line} ${bodies[before + i]}`.trim());
    };
    for (const [given, wire] of [
      [true, '1'],
      ['true', '1'],
      ['1', '1'],
      [false, '0'],
      ['false', '0'],
      ['0', '0'],
    ] as const)
      expect(await sent('organizations_update', { id: 'o1', purge_logo: given }), String(given)).toEqual([
        `PATCH /organizations/o1.json {"organization":{"purge_logo":"${wire}"}}`,
      ]);
    expect(
      await sent('collabs_update', { organization_id: 'o1', id: 'c1', purge_banner_image: true }),
    ).toEqual(['PATCH /organizations/o1/collabs/c1.json {"collab":{"purge_banner_image":"1"}}']);
    // What a boolean refuses, the flag refuses, with its own message; nothing is sent.
    const before = received.length;
    for (const text of ['True', 'yes', '', 1, 'on'])
      expect(
        detail(
          (await client.callTool({
            name: 'organizations_update',
            arguments: { id: 'o1', purge_logo: text },
          })) as CallToolResult,
        ).errors,
        String(text),
      ).toEqual({ purge_logo: ['must be "1" or "0"'] });
    expect(received.length).toBe(before);
  });

  test('the hint does not repeat what `errors` says: it names the fields to fix', async () => {
    const client = await connect();
    const missing = detail(
      (await client.callTool({ name: 'collabs_list', arguments: {} })) as CallToolResult,
    );
    expect(missing).toEqual({
      status: null,
      errors: { organization_id: ['is required'] },
      hint: 'Fix these fields and call again: organization_id.',
    });
    const wrong = detail(
      (await client.callTool({
        name: 'members_update',
        arguments: { organization_id: 'o1', id: 'm1', role: 'owner', rloe: 'admin' },
      })) as CallToolResult,
    );
    expect(wrong.hint).toBe('Fix these fields and call again: role, rloe.');
    for (const messages of Object.values(wrong.errors ?? {}))
      for (const message of messages) expect(wrong.hint).not.toContain(message);
  });

  test('an unknown argument names the arguments it may have meant, as the CLI and the SDK do', async () => {
    const client = await connect();
    const result = (await client.callTool({
      name: 'campaigns_create',
      arguments: { organization_id: 'o1', campaign: { name: 'Spring' }, cpm: 500 },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(detail(result).errors?.cpm?.[0]).toMatch(/^is not an argument of this tool: did you mean /);
    const typo = (await client.callTool({
      name: 'members_update',
      arguments: { organization_id: 'o1', id: 'm1', rloe: 'admin' },
    })) as CallToolResult;
    expect(detail(typo).errors?.rloe).toEqual([
      'is not an argument of this tool: did you mean role? (it takes organization_id, id, role)',
    ]);
  });

  test("an argument named by the last words of one (url for account_url, image for banner_image) names it: models drop a name's first word", async () => {
    const client = await connect();
    const errorsOf = async (name: string, args: Record<string, unknown>) =>
      detail((await client.callTool({ name, arguments: args })) as CallToolResult).errors;
    expect(
      (await errorsOf('me_social_accounts_create', { platform_id: 'x', url: 'https://x.com/a' }))?.url,
    ).toEqual([
      'is not an argument of this tool: did you mean account_url? (it takes platform_id, account_url, idempotency_key)',
    ]);
    expect(
      (await errorsOf('collabs_update', { organization_id: 'o1', id: 'c1', image: 'a.png' }))?.image?.[0],
    ).toMatch(/^is not an argument of this tool: did you mean banner_image or purge_banner_image\? /);
    expect((await errorsOf('me_notification_settings_update', { enabled: true }))?.enabled?.[0]).toMatch(
      /^is not an argument of this tool: did you mean push_notifications_enabled\? /,
    );
    // A word of two letters is no name's end worth naming (`id` ends organization_id too).
    expect((await errorsOf('organizations_list', { at: 1 }))?.at).toEqual([
      'is not an argument of this tool (it takes page, max_items, skip)',
    ]);
  });

  test('an argument given to a tool that takes none says so', async () => {
    const client = await connect();
    const result = (await client.callTool({
      name: 'me_address_retrieve',
      arguments: { foo: 1 },
    })) as CallToolResult;
    expect(detail(result).errors).toEqual({
      foo: ['is not an argument of this tool (it takes no arguments)'],
    });
  });

  test('an argument name or value is not echoed whole: a long one is cut to 100 characters with its length', async () => {
    const client = await connect();
    const name = 'n'.repeat(50_000);
    const result = (await client.callTool({
      name: 'collabs_list',
      arguments: { organization_id: 'o1', [name]: 1 },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text.length).toBeLessThan(1000);
    const shown = `${name.slice(0, 100)}… (50000 characters)`;
    expect(detail(result).errors).toEqual({
      [shown]: ['is not an argument of this tool (it takes organization_id, page, max_items, skip)'],
    });
  });

  test('a delete or a transition on a host that cannot ask is refused unless --yes; nothing is sent', async () => {
    const client = await connect();
    const before = received.length;
    for (const [name, args] of [
      ['collabs_delete', { organization_id: 'o1', id: 'c1' }],
      ['campaigns_publish', { organization_id: 'o1', id: 'c1' }],
      ['me_address_delete', {}],
      // A token minted for the model is a credential it could pass on: asked as a delete is.
      ['me_access_tokens_create', { description: 'agent', permission: 'write' }],
    ] as const) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      expect(result.isError, name).toBe(true);
      expect(detail(result)).toMatchObject({
        status: null,
        error: expect.stringMatching(/needs the user's confirmation, which this host cannot ask for/),
        hint: expect.stringMatching(/--yes/),
      });
    }
    expect(received.length).toBe(before);
    // With --yes it runs.
    const yes = await connect({ yes: true });
    const deleted = (await yes.callTool({
      name: 'collabs_delete',
      arguments: { organization_id: 'o1', id: 'c1' },
    })) as CallToolResult;
    expect(deleted.structuredContent).toEqual({ data: null });
    expect(received.slice(before)).toEqual(['DELETE /organizations/o1/collabs/c1.json']);
  });

  test('a call without `arguments` (optional in MCP) runs as `{}`: a tool that takes none runs, a required argument is named', async () => {
    const client = await connect({ yes: true });
    const before = received.length;
    const none = (await client.callTool({ name: 'me_address_delete' })) as CallToolResult;
    expect(none.isError, JSON.stringify(none)).toBeFalsy();
    expect(none.structuredContent).toEqual({ data: null });
    expect(received.slice(before)).toEqual(['DELETE /me/address.json']);
    const missing = (await client.callTool({ name: 'collabs_list' })) as CallToolResult;
    expect(detail(missing)).toMatchObject({ status: null, errors: { organization_id: ['is required'] } });
  });

  test('arguments that are not an object (null, a string, an array) are an invalid request (-32602) saying so, not an internal error', async () => {
    const client = await connect();
    for (const [args, sent] of [
      [null, 'null'],
      ['organization_id=o1', 'a string'],
      [[1], 'an array'],
    ] as const) {
      const call = client.request(
        { method: 'tools/call', params: { name: 'collabs_list', arguments: args as never } },
        CallToolResultSchema,
      );
      await expect(call, sent).rejects.toMatchObject({
        code: -32602,
        // The client puts "MCP error -32602: " before the message it receives: once.
        message: expect.stringMatching(
          new RegExp(
            `^MCP error -32602: The arguments of tools/call must be a JSON object of the tool's arguments by name \\(\\{\\} for none\\), not ${sent}\\.$`,
          ),
        ),
      });
    }
  });

  test('a call without a tool name (missing, not a string) is an invalid request (-32602) saying so, not an internal error with a zod dump', async () => {
    const client = await connect();
    for (const [params, sent] of [
      [{ arguments: {} }, 'none'],
      [{ name: 42, arguments: {} }, 'a number'],
      [{ name: null }, 'null'],
    ] as const) {
      const call = client.request({ method: 'tools/call', params: params as never }, CallToolResultSchema);
      await expect(call, sent).rejects.toMatchObject({
        code: -32602,
        message: `MCP error -32602: tools/call needs the tool's name as a string in params.name (tools/list lists them), not ${sent}.`,
      });
    }
  });

  test('a tool hidden by --read-only or --tools is a protocol error too, saying it is not exposed and why', async () => {
    const readOnly = await connect({ readOnly: true });
    // The MCP SDK's client prefixes the message it receives with "MCP error -32602: ": once.
    await expect(readOnly.callTool({ name: 'organizations_create', arguments: {} })).rejects.toThrow(
      /^MCP error -32602: Tool organizations_create is not exposed: the server runs with --read-only \(only the read tools\)$/,
    );
    const some = await connect({ groups: ['me'], readOnly: true });
    await expect(some.callTool({ name: 'collabs_create', arguments: {} })).rejects.toThrow(
      /^MCP error -32602: Tool collabs_create is not exposed: the server runs with --read-only \(only the read tools\) and --tools me \(only these groups\)$/,
    );
    await expect(some.callTool({ name: 'collabs_list', arguments: {} })).rejects.toThrow(
      /^MCP error -32602: Tool collabs_list is not exposed: the server runs with --tools me \(only these groups\)$/,
    );
  });

  test('an unknown tool is a protocol error (the MCP spec), naming the tools it may have meant; the message is prefixed once, by the client', async () => {
    const client = await connect();
    await expect(client.callTool({ name: 'organizations_lsit', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: 'MCP error -32602: Tool organizations_lsit not found. Did you mean organizations_list?',
    });
    await expect(client.callTool({ name: 'collabs_explode', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: 'MCP error -32602: Tool collabs_explode not found: tools/list gives the tools of this server.',
    });
    // Only exposed tools are suggested.
    const some = await connect({ groups: ['me'] });
    await expect(some.callTool({ name: 'collabs_lst', arguments: {} })).rejects.toMatchObject({
      message: 'MCP error -32602: Tool collabs_lst not found: tools/list gives the tools of this server.',
    });
    // A name of any length is cut short.
    await expect(client.callTool({ name: 'x'.repeat(5000), arguments: {} })).rejects.toMatchObject({
      message: `MCP error -32602: Tool ${'x'.repeat(100)}… (5000 characters) not found: tools/list gives the tools of this server.`,
    });
  });
});

describe('resources/read', () => {
  test('an unknown URI is one -32602 message (prefixed once, by the client) naming the resources and the template there are', async () => {
    const client = await connect();
    const schemas =
      'AccessToken, AccessTokenWithSecret, Address, Campaign, CampaignSummary, Collab, CollabSummary, Membership, Notification, NotificationSettings, Organization, SocialAccount';
    const there = `this server has marketplace://openapi.json (the OpenAPI document) and marketplace://schemas/{name} (the JSON Schema of a resource the tools return; name: ${schemas}); resources/list gives them.`;
    for (const uri of [
      'marketplace://nope',
      'http://example.com/x',
      'marketplace://openapi.json?x=1',
      'marketplace://schemas/',
      'marketplace://schemas/Campaign/x',
    ])
      await expect(client.readResource({ uri }), uri).rejects.toMatchObject({
        code: -32602,
        message: `MCP error -32602: Resource ${uri} not found: ${there}`,
      });
    // Not a URL at all: the same answer, not an internal error (-32603 "Invalid URL").
    await expect(client.readResource({ uri: 'Campaign' })).rejects.toMatchObject({
      code: -32602,
      message: `MCP error -32602: Resource Campaign not found: ${there}`,
    });
    // A URI of any length is repeated cut short.
    await expect(client.readResource({ uri: `marketplace://${'x'.repeat(5000)}` })).rejects.toThrow(
      /^MCP error -32602: Resource marketplace:\/\/x{86}… \(5014 characters\) not found: /,
    );
    // A schema name nearly right names the one it may have meant.
    await expect(client.readResource({ uri: 'marketplace://schemas/campaign' })).rejects.toMatchObject({
      code: -32602,
      message: `MCP error -32602: No schema campaign. Did you mean Campaign? resources/list gives the schemas (${schemas}).`,
    });
    // What there is still reads.
    const read = await client.readResource({ uri: 'marketplace://schemas/Organization' });
    expect(read.contents[0]).toMatchObject({ uri: 'marketplace://schemas/Organization' });
  });
});

describe('the OpenAPI resource', () => {
  test('with the API down, reading it says which URL failed and what to check', async () => {
    const closed = createHttpServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const downUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const client = await connect({ baseUrl: downUrl });
    await expect(client.readResource({ uri: 'marketplace://openapi.json' })).rejects.toThrow(
      `The OpenAPI document could not be read from ${downUrl}/openapi.json: the API did not answer (ECONNREFUSED). Check MARKETPLACE_BASE_URL and that the API is running.`,
    );
    // An answer that is not the document names its status.
    const answering = await connect({ baseUrl: apiUrl });
    await expect(answering.readResource({ uri: 'marketplace://openapi.json' })).rejects.toThrow(
      `The OpenAPI document could not be read from ${apiUrl}/openapi.json: the API answered 204.`,
    );
  });
});

describe('a call that the host retries, cancels, or that the API does not answer (a stand-in API)', () => {
  /** A stand-in API that records each request's Idempotency-Key and answers nothing until told. */
  let slow: Server;
  let slowUrl: string;
  const held: Array<{ key: string | undefined; closed: Promise<unknown>; answer: () => void }> = [];
  let arrived: (() => void) | undefined;
  beforeAll(async () => {
    slow = createHttpServer((req, res) => {
      const key = req.headers['idempotency-key'];
      held.push({
        key: typeof key === 'string' ? key : undefined,
        closed: once(res, 'close'),
        answer: () => res.writeHead(422, { 'content-type': 'application/json' }).end('{"errors":{}}'),
      });
      arrived?.();
    });
    slow.listen(0, '127.0.0.1');
    await once(slow, 'listening');
    slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    slow.closeAllConnections();
    return new Promise<void>((resolve) => slow.close(() => resolve()));
  });
  const nextRequest = () => new Promise<void>((resolve) => (arrived = resolve));

  /** Makes `organizations_create` with request id 1 in `client` and returns the key the API got. */
  async function keyOf(client: Client, name: string): Promise<string | undefined> {
    const came = nextRequest();
    const call = client.callTool({
      name: 'organizations_create',
      arguments: { name },
      _meta: { requestId: 1 },
    });
    await came;
    const request = held.at(-1);
    request?.answer();
    await call;
    return request?.key;
  }

  test('the key derived from a request id is the same for the same call in a session, another in another session or for other arguments', async () => {
    const first = await connect({ baseUrl: slowUrl });
    const second = await connect({ baseUrl: slowUrl });
    const key = await keyOf(first, 'Acme');
    expect(key).toMatch(/^mcp-[0-9a-f]{64}$/);
    expect(await keyOf(first, 'Acme')).toBe(key);
    // Hosts number requests from 1 in every session: the next session's request 1 must not replay this one.
    expect(await keyOf(second, 'Acme')).not.toBe(key);
    expect(await keyOf(first, 'Beta')).not.toBe(key);
  });

  test('a call the host cancels stops its request to the API', async () => {
    const client = await connect({ baseUrl: slowUrl });
    const cancel = new AbortController();
    const came = nextRequest();
    const call = client.callTool({ name: 'organizations_list', arguments: {} }, undefined, {
      signal: cancel.signal,
    });
    await came;
    cancel.abort();
    await expect(call).rejects.toThrow();
    // The API's side of the request closes: the SDK's fetch was aborted, not left to its 30 s timeout.
    await held.at(-1)?.closed;
  });

  test('a call the API does not answer within the budget is an isError result naming a key that makes calling again safe', async () => {
    const client = await connect({ baseUrl: slowUrl, callBudgetMs: 100 });
    const listed = (await client.callTool({ name: 'organizations_list', arguments: {} })) as CallToolResult;
    expect(listed.isError).toBe(true);
    expect(detail(listed)).toEqual({
      status: null,
      error: 'No complete answer from the API within 0.1 s; the call was given up.',
      hint: 'The API is slow or unreachable: try again later, or with a smaller max_items.',
    });
    const created = (await client.callTool({
      name: 'organizations_create',
      arguments: { name: 'Acme', idempotency_key: 'k-123' },
    })) as CallToolResult;
    expect(detail(created).hint).toBe(
      'The API is slow or unreachable, and whether the call took effect is unknown: call again with idempotency_key "k-123", which runs it at most once.',
    );
    // A delete reads what it asks about first: that read has the budget too.
    const asking = await connect({ baseUrl: slowUrl, callBudgetMs: 100 }, { elicitation: {} });
    const deleted = (await asking.callTool({
      name: 'collabs_delete',
      arguments: { organization_id: 'o1', id: 'c1' },
    })) as CallToolResult;
    expect(detail(deleted)).toEqual({
      status: null,
      error: 'No complete answer from the API within 0.1 s; the call was given up.',
      hint: 'The API is slow or unreachable, and whether the change was made is unknown: read the resource before calling again.',
    });
    const read = client.readResource({ uri: 'marketplace://openapi.json' });
    await expect(read).rejects.toThrow(
      `The OpenAPI document could not be read from ${slowUrl}/openapi.json: no complete answer within 0.1 s.`,
    );
  });
});

describe('a call whose idempotency key is still running elsewhere (a stand-in API)', () => {
  test('the 409 the SDK gave up retrying says to call again with the same key, not to check the arguments', async () => {
    const keys: unknown[] = [];
    const busy = createHttpServer((req, res) => {
      keys.push(req.headers['idempotency-key']);
      // What the server answers while the first request with the key runs.
      res
        .writeHead(409, { 'content-type': 'application/json', 'retry-after': '0' })
        .end('{"error":"A request with this Idempotency-Key is in progress"}');
    });
    busy.listen(0, '127.0.0.1');
    await once(busy, 'listening');
    try {
      const client = await connect({ baseUrl: `http://127.0.0.1:${(busy.address() as AddressInfo).port}` });
      const result = (await client.callTool({
        name: 'organizations_create',
        arguments: { name: 'Acme', idempotency_key: 'k-1' },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(detail(result)).toEqual({
        status: 409,
        error: 'A request with this Idempotency-Key is in progress',
        hint: 'A request with this idempotency key is still running: call again in a moment with the same key, which runs it at most once (a new key would run it again).',
      });
      // The SDK tried again before giving up, always with the same key.
      expect(keys.length).toBeGreaterThan(1);
      expect(new Set(keys)).toEqual(new Set(['k-1']));
    } finally {
      busy.closeAllConnections();
      await new Promise<void>((resolve) => busy.close(() => resolve()));
    }
  });
});
