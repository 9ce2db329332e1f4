import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endpointDescription, publicEndpoints, testHelperEndpointList } from '@app/schemas';
import { HttpResponse, http } from 'msw';
import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import { Marketplace, RequestValidationError } from '../src/index.js';
import {
  callOperation,
  DEFAULT_MAX_UPLOAD_BYTES,
  fileValueReader,
  inputJsonSchema,
  type ListResult,
  type Operation,
  operations,
  readFileValue,
  requestOf,
} from '../src/operations.js';
import {
  BASE,
  COLLAB_ID,
  client,
  collab,
  mockServer,
  ORG_ID,
  organization,
  pageOf,
  recordRequests,
  TOKEN,
} from './fixtures.js';

const server = mockServer();
const seen = recordRequests(server);
const op = (name: string) => operations.find((o) => o.name === name) as Operation;

/** The error `call` was refused with, before any request was sent. */
async function refused(call: Promise<unknown>): Promise<RequestValidationError> {
  const error = await call.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RequestValidationError);
  expect(seen).toHaveLength(0);
  return error as RequestValidationError;
}

describe('operations', () => {
  test('one operation per public endpoint, none for the test helpers', () => {
    expect(operations.map((op) => op.name)).toEqual(publicEndpoints.map((e) => e.name));
    for (const helper of testHelperEndpointList)
      expect(operations.some((op) => op.endpoint.path === helper.path)).toBe(false);
  });

  test('names follow the SDK (decisions.md §5) and are unique', () => {
    const byName = Object.fromEntries(operations.map((op) => [op.name, op]));
    expect(byName['socialAccounts.list']).toMatchObject({
      sdkPath: ['me', 'socialAccounts', 'list'],
      toolName: 'me_social_accounts_list',
      command: ['me', 'social-accounts', 'list'],
    });
    expect(byName['address.update']).toMatchObject({ toolName: 'me_address_update', kind: 'update' });
    expect(byName['collabs.list']).toMatchObject({ toolName: 'collabs_list', kind: 'list' });
    expect(byName['collabs.submit']?.kind).toBe('transition');
    expect(new Set(operations.map((op) => op.toolName)).size).toBe(operations.length);
    expect(new Set(operations.map((op) => op.command.join(' '))).size).toBe(operations.length);
  });

  test('a call goes through client.list/request/transition with { params, query, body }: no resource method is looked up', async () => {
    const sent: string[] = [];
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      const url = new URL(request.url);
      sent.push(
        `${request.method} ${url.pathname}${url.search} ${request.method === 'GET' ? '' : await request.text()}`.trim(),
      );
      if (url.pathname.endsWith('/submit.json'))
        return new Response(null, { status: 303, headers: { location: '/x' } });
      if (request.method === 'DELETE') return new Response(null, { status: 204 });
      if (url.pathname === '/me/address.json') return new Response(null, { status: 404 });
      if (url.pathname.endsWith('/collabs.json') && request.method === 'GET') return pageOf([collab], 1);
      return Response.json(collab, { status: request.method === 'POST' ? 201 : 200 });
    };
    // The resource groups are the SDK's own sugar: the operations need only the client's core.
    const bare = new Marketplace({ token: TOKEN, baseUrl: BASE, fetch, maxRetries: 0 });
    for (const group of ['organizations', 'collabs', 'campaigns', 'members', 'me'])
      Object.defineProperty(bare, group, { value: undefined });
    const ids = { organization_id: ORG_ID, id: COLLAB_ID };
    const listed = await callOperation(bare, op('collabs.list'), { organization_id: ORG_ID, page: 1 });
    expect((listed.data as { id: string }[]).map((c) => c.id)).toEqual([COLLAB_ID]);
    await callOperation(bare, op('collabs.create'), {
      organization_id: ORG_ID,
      name: 'Launch',
      query_website: 'https://shop.example/p',
    });
    const submitted = await callOperation(bare, op('collabs.submit'), ids);
    expect(submitted.data).toEqual(collab);
    expect((await callOperation(bare, op('collabs.delete'), ids)).data).toBeNull();
    // The table says this 404 is empty: it means "no address", not an error.
    expect((await callOperation(bare, op('address.retrieve'), {})).data).toBeNull();
    expect(sent).toEqual([
      `GET /organizations/${ORG_ID}/collabs.json?page=1`,
      `POST /organizations/${ORG_ID}/collabs.json?website=https%3A%2F%2Fshop.example%2Fp {"collab":{"name":"Launch"}}`,
      `POST /organizations/${ORG_ID}/collabs/${COLLAB_ID}/submit.json`,
      `GET /organizations/${ORG_ID}/collabs/${COLLAB_ID}.json`,
      `DELETE /organizations/${ORG_ID}/collabs/${COLLAB_ID}.json`,
      'GET /me/address.json',
    ]);
  });

  test("a walk that streams its pages (onItems) keeps none of them: memory is one page, however long the list (the CLI's --all as JSON held every item)", async () => {
    const items = Array.from({ length: 45 }, (_, i) => ({
      ...organization,
      id: `org${i}`,
      name: `Org ${i}`,
    }));
    const fetch = async (input: string | URL | Request) =>
      pageOf(items, Number(new URL(new Request(input).url).searchParams.get('page') ?? 1));
    const bare = new Marketplace({ token: TOKEN, baseUrl: BASE, fetch, maxRetries: 0 });
    const streamed: unknown[][] = [];
    const heads: Response[] = [];
    const result = (await callOperation(
      bare,
      op('organizations.list'),
      {},
      {
        maxItems: 30,
        onItems: (page, response) => {
          streamed.push([...page]);
          heads.push(response);
        },
      },
    )) as ListResult;
    expect(streamed.map((page) => page.length)).toEqual([20, 10]);
    expect(streamed.flat()).toEqual(items.slice(0, 30));
    // The head comes with the first page's items (the CLI's --include streams): the result's, the first page's.
    expect(heads).toEqual([result.response, result.response]);
    expect(result.response?.headers.get('current-page')).toBe('1');
    expect(result).toMatchObject({
      data: [],
      page: 1,
      total_pages: 3,
      total_count: 45,
      next_page: 2,
      next_skip: 10,
    });
    // Without onItems the items are the result's, as before.
    const kept = (await callOperation(bare, op('organizations.list'), {}, { maxItems: 30 })) as ListResult;
    expect(kept.data).toEqual(items.slice(0, 30));
    expect(kept).toMatchObject({ next_page: 2, next_skip: 10 });
  });

  test.each([
    ['maxItems', Number.NaN, 'maxItems must be a non-negative integer (or Infinity), got NaN'],
    ['maxItems', -1, 'maxItems must be a non-negative integer (or Infinity), got -1'],
    ['maxItems', 2.5, 'maxItems must be a non-negative integer (or Infinity), got 2.5'],
    ['skip', -3, 'skip must be a non-negative integer, got -3'],
    ['skip', 1.5, 'skip must be a non-negative integer, got 1.5'],
    ['skip', Number.POSITIVE_INFINITY, 'skip must be a non-negative integer, got Infinity'],
  ])('a list called with %s: %s is a RangeError, and nothing is sent', async (option, value, message) => {
    await expect(callOperation(client(), op('organizations.list'), {}, { [option]: value })).rejects.toThrow(
      new RangeError(message),
    );
    expect(seen).toHaveLength(0);
  });

  test("descriptions are the table's prose (endpointDescription), not the summary again", () => {
    for (const op of operations) {
      // The prose for a call (the CLI's help, the MCP tools): flat arguments and a result, no HTTP.
      expect(op.description, op.name).toBe(endpointDescription(op.endpoint, 'call'));
      expect(op.description.startsWith(op.title), op.name).toBe(false);
    }
    const del = operations.find((o) => o.name === 'collabs.delete');
    expect(del?.description).toMatch(/Deleting it again is `404`/);
    const submit = operations.find((o) => o.name === 'collabs.submit');
    expect(submit?.description).toMatch(/not allowed from the current state is `422`/);
    expect(submit?.description).not.toMatch(/redirect|303/);
    // The OpenAPI document's keeps HTTP's terms.
    expect(endpointDescription(submit?.endpoint as never)).toMatch(/`303 See Other`.*redirect: 'manual'/);
  });

  test('every input is described; enums the schemas know are listed', () => {
    for (const op of operations) {
      const properties = (
        z.toJSONSchema(op.input, { io: 'input' }) as { properties: Record<string, { description?: string }> }
      ).properties;
      for (const [name, schema] of Object.entries(properties))
        expect(schema.description, `${op.name} ${name}`).toBeTruthy();
    }
    const role = operations.find((o) => o.name === 'members.update')?.input.shape.role as z.ZodType;
    expect(z.toJSONSchema(role, { io: 'input' })).toMatchObject({ enum: ['member', 'admin'] });
    // A create's default is said on the create only: an update leaves out what it does not change.
    const described = (name: string, field: string) =>
      (
        z.toJSONSchema(operations.find((o) => o.name === name)?.input.shape[field] as z.ZodType, {
          io: 'input',
        }) as { description?: string }
      ).description;
    expect(described('organizations.create', 'privacy_setting')).toBe(
      'Who can find the organization (default private)',
    );
    expect(described('organizations.update', 'privacy_setting')).toBe('Who can find the organization');
    expect(described('collabs.update', 'countries')).not.toMatch(/default/);
  });

  test('flat inputs: path params, query and body fields; a query field named like a body field gets query_', () => {
    const create = operations.find((op) => op.name === 'collabs.create');
    expect(create?.pathParams).toEqual(['organization_id']);
    expect(create?.queryNames).toEqual({ query_website: 'website' });
    expect(Object.keys(create?.input.shape ?? {})).toEqual(
      expect.arrayContaining(['organization_id', 'name', 'website', 'banner_image', 'query_website']),
    );
    const list = operations.find((op) => op.name === 'collabs.list');
    expect(Object.keys(list?.input.shape ?? {})).toEqual(['organization_id', 'page']);
  });

  test('every input and response converts to JSON Schema', () => {
    for (const op of operations) {
      expect(z.toJSONSchema(op.input, { io: 'input' }).type, op.name).toBe('object');
      if (op.response) expect(() => z.toJSONSchema(op.response as z.ZodType, { io: 'output' })).not.toThrow();
    }
  });
});

describe('flat arguments are checked before anything is sent', () => {
  test.each([
    ['left out', {}],
    ['undefined', { organization_id: undefined }],
    ['empty', { organization_id: '' }],
  ])('a path parameter %s is refused as blank, as the typed methods refuse it', async (_what, ids) => {
    const error = await refused(callOperation(client(), op('collabs.create'), { ...ids, name: 'Launch' }));
    expect(error.errors).toEqual({ organization_id: ["can't be blank"] });
    expect(error.message).toBe("Invalid request: organization_id can't be blank");
    // The typed method's wording for the same mistake.
    const typed = await refused(client().collabs.create('' as never, { name: 'Launch' }));
    expect(typed.errors).toEqual(error.errors);
  });

  test('an argument the operation does not take is refused, with the near names', async () => {
    const error = await refused(
      callOperation(client(), op('collabs.create'), { orgId: ORG_ID, nmae: 'Launch', bannerImage: 'x' }),
    );
    expect(error.errors).toEqual({
      organization_id: ["can't be blank"],
      orgId: ['is not an argument of collabs.create: did you mean organization_id?'],
      nmae: ['is not an argument of collabs.create: did you mean name?'],
      bannerImage: ['is not an argument of collabs.create: did you mean banner_image?'],
    });
  });

  test('an unknown argument with no name near it lists what the operation takes', async () => {
    const error = await refused(
      callOperation(client(), op('members.update'), {
        organization_id: ORG_ID,
        id: 'Mb7Qx1Lr9TzK',
        role: 'admin',
        colour: 'red',
      }),
    );
    expect(error.errors).toEqual({
      colour: ['is not an argument of members.update (it takes organization_id, id, role)'],
    });
  });

  test('an unknown argument given as undefined is as if not given', async () => {
    server.use(http.get(`${BASE}/organizations/${ORG_ID}/collabs.json`, () => pageOf([collab], 1)));
    const listed = await callOperation(client(), op('collabs.list'), {
      organization_id: ORG_ID,
      nmae: undefined,
    });
    expect((listed.data as { id: string }[]).map((c) => c.id)).toEqual([COLLAB_ID]);
  });

  test('requestOf refuses them too', async () => {
    await expect(requestOf(op('organizations.retrieve'), { ID: 'x' })).rejects.toMatchObject({
      errors: {
        id: ["can't be blank"],
        ID: ['is not an argument of organizations.retrieve: did you mean id?'],
      },
    });
  });
});

describe('file fields', () => {
  const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
  const dataUrl = `data:image/png;base64,${Buffer.from(PNG).toString('base64')}`;

  /** The logos the server received, as bytes. */
  function serveCreate(): Uint8Array[] {
    const logos: Uint8Array[] = [];
    server.use(
      http.post(`${BASE}/organizations.json`, async ({ request }) => {
        const logo = (await request.formData()).get('organization[logo]') as Blob;
        logos.push(new Uint8Array(await logo.arrayBuffer()));
        return HttpResponse.json(organization, { status: 201 });
      }),
    );
    return logos;
  }

  test.each(['/etc/passwd', '~/.ssh/id_rsa', 'logo.png'])(
    'by default a local path (%s) is refused, and nothing is read or sent',
    async (path) => {
      const error = await refused(
        callOperation(client(), op('organizations.create'), { name: 'Acme', logo: path }),
      );
      expect(error.errors).toEqual({
        logo: [
          'is not a data: URL; a local file is read only when the call passes readFile (e.g. readFileValue, which reads any local path)',
        ],
      });
    },
  );

  // A data: URL cut short (a README's `iVBORw0KGgo…`) was a `TypeError: fetch failed`.
  test('a data: URL that cannot be read is refused on its field, and nothing is sent', async () => {
    const logos = serveCreate();
    const error = await refused(
      callOperation(client(), op('organizations.create'), {
        name: 'Acme',
        logo: 'data:image/png;base64,iVBORw0KGgo…',
      }),
    );
    expect(error.errors).toEqual({ logo: [expect.stringMatching(/^is not a readable data: URL/)] });
    expect(logos).toEqual([]);
  });

  test('by default a data: URL is sent', async () => {
    const logos = serveCreate();
    await callOperation(client(), op('organizations.create'), { name: 'Acme', logo: dataUrl });
    expect(logos).toEqual([PNG]);
  });

  test('with readFile: readFileValue, a local file is read and sent', async () => {
    const logos = serveCreate();
    const dir = await mkdtemp(join(tmpdir(), 'sdk-operations-'));
    try {
      const path = join(dir, 'logo.png');
      await writeFile(path, PNG);
      await callOperation(
        client(),
        op('organizations.create'),
        { name: 'Acme', logo: path },
        { readFile: readFileValue },
      );
      expect(logos).toEqual([PNG]);
    } finally {
      await rm(dir, { recursive: true });
    }
  });

  test("readFileValue reads at most the API's upload limit: a longer file or a device is EFBIG, read no further (it read /dev/zero until memory ran out)", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sdk-operations-'));
    try {
      const exact = join(dir, 'exact.png');
      await writeFile(exact, new Uint8Array(DEFAULT_MAX_UPLOAD_BYTES));
      expect((await readFileValue(exact, 'logo')).size).toBe(DEFAULT_MAX_UPLOAD_BYTES);
      const over = join(dir, 'over.png');
      await writeFile(over, new Uint8Array(DEFAULT_MAX_UPLOAD_BYTES + 1));
      const tooLong = {
        code: 'EFBIG',
        message: `it is over ${DEFAULT_MAX_UPLOAD_BYTES} bytes, more than the API takes; nothing was sent`,
      };
      await expect(readFileValue(over, 'logo')).rejects.toMatchObject(tooLong);
      if (process.platform !== 'win32')
        await expect(readFileValue('/dev/zero', 'logo')).rejects.toMatchObject(tooLong);
      const small = fileValueReader({ maxBytes: 3 });
      await writeFile(join(dir, 'three'), 'abc');
      expect(await (await small(join(dir, 'three'), 'logo')).text()).toBe('abc');
      await expect(small(over, 'logo')).rejects.toMatchObject({ code: 'EFBIG' });
      expect(() => fileValueReader({ maxBytes: -1 })).toThrow(RangeError);
    } finally {
      await rm(dir, { recursive: true });
    }
  });

  test("readFileValue: the file's type from its extension, in any case; none without one", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sdk-operations-'));
    try {
      await mkdir(join(dir, 'v1.2'));
      for (const name of ['LOGO.PNG', 'photo.jpeg', 'v1.2/logo']) await writeFile(join(dir, name), PNG);
      expect((await readFileValue(join(dir, 'LOGO.PNG'), 'logo')).type).toBe('image/png');
      expect((await readFileValue(join(dir, 'photo.jpeg'), 'logo')).type).toBe('image/jpeg');
      expect((await readFileValue(join(dir, 'v1.2/logo'), 'logo')).type).toBe('');
    } finally {
      await rm(dir, { recursive: true });
    }
  });
});

describe('inputJsonSchema', () => {
  test("every flat input as JSON Schema, its input side (zod's default, the output side, cannot show the transforms)", () => {
    expect(() => z.toJSONSchema(op('collabs.create').input)).toThrow(/Transforms cannot be represented/);
    for (const o of operations) {
      const schema = inputJsonSchema(o);
      expect(schema.type, o.name).toBe('object');
      expect(Object.keys(schema.properties), o.name).toEqual(Object.keys(o.input.shape));
      // callOperation refuses any other argument: the schema says so.
      expect(schema.additionalProperties, o.name).toBe(false);
      expect(schema, o.name).not.toHaveProperty('$schema');
    }
    expect(inputJsonSchema(op('members.update'))).toMatchObject({
      required: ['organization_id', 'id', 'role'],
      properties: { role: { type: 'string', enum: ['member', 'admin'] } },
    });
    expect(inputJsonSchema(op('collabs.create')).properties.countries).toMatchObject({ type: 'array' });
  });

  test("an input extended with arguments of the caller's own", () => {
    const list = op('collabs.list');
    const schema = inputJsonSchema(list, list.input.extend({ max_items: z.number().int().optional() }));
    expect(Object.keys(schema.properties)).toEqual(['organization_id', 'page', 'max_items']);
    expect(schema.required).toEqual(['organization_id']);
  });
});
