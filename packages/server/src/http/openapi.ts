/**
 * The published contract (`GET /openapi.json`, committed as `openapi.json`): OpenAPI 3.1 built
 * from the endpoint table and the zod schemas alone — no app is built or booted. Each endpoint
 * becomes an operation (its parameters and body from its zod schemas, through the same zod →
 * JSON Schema conversion the server's validation uses), with every status it can answer, the
 * headers and the named components (`contractRegistry`, each schema's description and example
 * beside it), all from the same table.
 */
import {
  componentById,
  contractRegistry,
  type Endpoint,
  endpointDescription,
  IDEMPOTENCY_KEY_IN_PROGRESS_MESSAGE,
  type NamedEndpoint,
  NOT_ACCEPTABLE_TEXT,
  PAGINATION_HEADERS,
  publicEndpoints,
  testHelperEndpointList,
  UNAUTHORIZED_TEXT,
  WWW_AUTHENTICATE,
  withFieldDescriptions,
} from '@app/schemas';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import * as z from 'zod';
import { IMAGE_TYPES } from '../modules/uploads/uploads.js';
import { bodySchemaOf } from './body-schema.js';

type Json = Record<string, unknown>;

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const json = (schema: Json) => ({ 'application/json': { schema } });
const text = (example: string) => ({ 'text/plain': { schema: { type: 'string', examples: [example] } } });
const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });
const integerHeader = (description: string, minimum = 0) => header(description, { type: 'integer', minimum });

/** On every answer: the server's id of the request, which its log lines carry (`reqId`). */
const REQUEST_ID_HEADER_NAME = 'X-Request-Id';
const requestIdHeader = header(
  "The server's own id of this request, unique per request; its log lines carry it as `reqId`. Quote it when reporting a problem",
);

/** A list's page headers, components of their own (`components.headers`) that every list refers to. */
const paginationHeaders: Record<string, Json> = {
  [PAGINATION_HEADERS.currentPage]: integerHeader('The page returned (as asked)', 1),
  [PAGINATION_HEADERS.pageItems]: integerHeader('Page size (always 20)'),
  [PAGINATION_HEADERS.totalCount]: integerHeader('Items in the whole list'),
  [PAGINATION_HEADERS.totalPages]: integerHeader('Pages in the whole list (at least 1)', 1),
};

const retryAfter = { 'Retry-After': integerHeader('Seconds to wait before retrying (always 1)') };
const etag = { ETag: header('Weak tag of the body (`W/"…"`): send it back in `If-None-Match`') };
/** On the success answer of an endpoint that takes `Idempotency-Key` (and on any replayed answer). */
const replayed = {
  'Idempotent-Replayed': header(
    '`true` when this is the stored answer of an earlier request with the same `Idempotency-Key`',
    {
      type: 'string',
      const: 'true',
    },
  ),
};

const TAGS: Record<string, string> = {
  organizations: 'Brands and agencies. The creator of an organization is its owner.',
  collabs: "An organization's collabs: drafts, review, publication, pause.",
  campaigns: "An organization's paid campaigns: drafts, publication, pause, budget.",
  members: 'Memberships of an organization and their roles.',
  socialAccounts: "The caller's connected social accounts.",
  address: "The caller's shipping address.",
  notificationSettings: "The caller's notification settings.",
  notifications: "The caller's notification inbox.",
  accessTokens: "The caller's personal access tokens.",
  testHelpers:
    'Sandbox only (enabled by `MARKETPLACE_TEST_HELPERS_KEY`): set up users, memberships and states ' +
    'that the public API cannot reach.',
};

/** Whether an operation checks a role in an organization (non-members 404, lacking role 403). */
const checksRole = (e: Endpoint) => ['member', 'admin', 'owner', 'admin-or-self'].includes(e.access);

/** Every status an endpoint can answer, with its body and headers. */
export function responsesOf(e: NamedEndpoint): Record<string, Json> {
  const r: Record<string, Json> = {};
  const response = e.response as { _zod?: unknown } | undefined;
  const successSchema = (): Json => {
    if (!response) return {};
    const reg = contractRegistry.get(e.response as never);
    if (reg?.id) return ref(reg.id);
    const item = e.paginated
      ? contractRegistry.get((e.response as unknown as { element: never }).element)
      : null;
    return item?.id ? { type: 'array', items: ref(item.id) } : {};
  };
  switch (e.status) {
    case 200:
      r['200'] = {
        description: e.paginated ? 'One page of at most 20 items, in the list order' : 'The resource',
        ...(e.paginated && {
          headers: Object.fromEntries(
            Object.keys(paginationHeaders).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
          ),
        }),
        ...(e.etag && { headers: etag }),
        content: json(successSchema()),
      };
      break;
    case 201:
      r['201'] = { description: 'Created', content: json(successSchema()) };
      break;
    case 204:
      r['204'] = { description: 'Done; no content' };
      break;
    case 303: {
      r['303'] = {
        description:
          'Done: the change is made; `Location` is the page of the resource (no body). A client ' +
          'that follows it with `Accept: application/json` reads the resource there (the `200` ' +
          'below); one that sends no `Accept` (openapi-fetch, hey-api, orval by default) gets `406`',
        headers: {
          Location: header('The resource page (its path without `.json`)', { type: 'string', format: 'uri' }),
        },
      };
      // Not this request's answer, but what a client that follows the 303 (fetch's and axios'
      // default) gets from `Location`, so that generated clients type what they receive.
      const shown = e.show?.response && contractRegistry.get(e.show.response)?.id;
      if (shown)
        r['200'] = {
          description:
            'What a client that follows the `303` gets from `Location` with `Accept: application/json`: ' +
            'the resource after the change (without that header, `406`). This request itself answers `303`',
          ...(e.show?.etag && { headers: etag }),
          content: json(ref(shown)),
        };
      break;
    }
  }
  if (e.idempotent)
    for (const status of ['201', '303']) {
      const answer = r[status];
      if (answer) answer.headers = { ...(answer.headers as Json | undefined), ...replayed };
    }
  if (e.etag)
    r['304'] = { description: 'Not modified: `If-None-Match` matched the current tag', headers: etag };
  r['400'] = {
    description:
      'Malformed request (a body that is not JSON or nests deeper than 32 levels, a malformed ' +
      'multipart form, a malformed URL' +
      (e.idempotent ? ', an `Idempotency-Key` that is not 1 to 255 printable ASCII characters' : '') +
      ')',
    content: json(ref('ErrorBody')),
  };
  r['401'] =
    e.access === 'test-helpers'
      ? { description: 'Missing or wrong test-helpers key', content: text(UNAUTHORIZED_TEXT) }
      : {
          description:
            'Missing, unknown, revoked or malformed token, or a read token on a write' +
            (e.method === 'GET' ? '' : ' (this operation needs a `write` token)'),
          headers: {
            'WWW-Authenticate': header('Always `Token realm="Application"`', {
              type: 'string',
              const: WWW_AUTHENTICATE,
            }),
          },
          content: text(UNAUTHORIZED_TEXT),
        };
  if (checksRole(e))
    r['403'] = {
      description:
        'The caller is a member whose role does not allow this' +
        (e.forbiddenWhen ? `, or ${e.forbiddenWhen}` : ''),
      content: json(ref('ErrorBody')),
    };
  r['404'] = e.emptyNotFound
    ? { description: 'Nothing there (empty body)' }
    : { description: 'Not found, or not visible to the caller', content: json(ref('ErrorBody')) };
  r['406'] = {
    description: 'Neither the `.json` suffix nor `Accept: application/json` was sent',
    content: text(NOT_ACCEPTABLE_TEXT),
  };
  if (e.idempotent)
    r['409'] = {
      description: `${IDEMPOTENCY_KEY_IN_PROGRESS_MESSAGE}: the first request with this \`Idempotency-Key\` has not answered yet; retry after \`Retry-After\` seconds`,
      headers: retryAfter,
      content: json(ref('ErrorBody')),
    };
  if (e.body) {
    r['408'] = {
      description: 'The body did not arrive within the receive timeout; the connection is closed',
      content: json(ref('ErrorBody')),
    };
    r['413'] = {
      description:
        e.body.files.length > 0
          ? 'Request body over 1 MiB (JSON), or a multipart form over its caps (a field over 96 KiB, ' +
            'more than 300 fields, fields over 1 MiB together)'
          : 'Request body over 1 MiB',
      content: json(ref('ErrorBody')),
    };
    r['415'] = {
      description: 'Unsupported request content type, or a content encoding other than identity',
      content: json(ref('ErrorBody')),
    };
  }
  if (e.method !== 'GET' || e.paginated)
    r['422'] = {
      description:
        'Invalid input, or a rule of the resource refuses the change' +
        (e.idempotent ? ' (or `Idempotency-Key` was used with another request: on `base`)' : ''),
      content: json(ref('ValidationErrors')),
    };
  r['503'] = {
    description: 'Overloaded or the database is unreachable: retry after `Retry-After` seconds',
    headers: retryAfter,
    content: json(ref('ErrorBody')),
  };
  for (const answer of Object.values(r))
    answer.headers = {
      ...(answer.headers as Json | undefined),
      [REQUEST_ID_HEADER_NAME]: { $ref: `#/components/headers/${REQUEST_ID_HEADER_NAME}` },
    };
  return r;
}

/** The multipart variant of an upload body: Rails-style field names, files as binary. */
function multipartOf(
  e: Endpoint,
  jsonBody: Json,
  components: Record<string, Json>,
): { schema: Json; encoding: Json } | undefined {
  const spec = e.body;
  if (!spec || spec.files.length === 0 || spec.key === null) return undefined;
  // An optional body (collab create) is `anyOf: [{wrapper}, {type: 'null'}]`.
  const object = ((jsonBody.anyOf as Json[] | undefined) ?? [jsonBody]).find((s) => s.type === 'object');
  const wrapper = object?.properties as Record<string, Json> | undefined;
  let payload = wrapper?.[spec.key] ?? {};
  const id = typeof payload.$ref === 'string' ? payload.$ref.split('/').pop() : undefined;
  if (id && components[id]) payload = components[id] as Json;
  const properties: Record<string, Json> = {};
  // A form field is text; a set of strings the JSON field takes (`enum`) is kept, by its
  // component's name when it has one (`CurrencyCode`), and a boolean or an integer says the text
  // the server reads as one (pipeline/multipart.ts: `true`/`1`, `false`/`0`; digits).
  const text = (schema: Json | undefined): Json => {
    const ref = typeof schema?.$ref === 'string' ? schema.$ref : undefined;
    const target = ref ? components[ref.split('/').pop() as string] : schema;
    const values =
      Array.isArray(target?.enum) && target.enum.every((v) => typeof v === 'string') && target.enum;
    if (ref && values) return { $ref: ref };
    const types = new Set(
      [target?.type, ...((target?.anyOf as Json[] | undefined) ?? []).map((branch) => branch.type)].filter(
        (type) => typeof type === 'string' && type !== 'null',
      ),
    );
    const only = types.size === 1 ? [...types][0] : undefined;
    if (only === 'boolean') return { type: 'string', enum: ['true', 'false', '1', '0'] };
    if (only === 'integer') return { type: 'string', pattern: '^-?[0-9]+$' };
    return { type: 'string', ...(values && { enum: values }) };
  };
  for (const [name, schema] of Object.entries((payload.properties ?? {}) as Record<string, Json>)) {
    const isArray = schema.type === 'array';
    properties[`${spec.key}[${name}]${isArray ? '[]' : ''}`] = {
      ...(isArray ? { type: 'array', items: text(schema.items as Json | undefined) } : text(schema)),
      ...(schema.description ? { description: schema.description } : {}),
    };
  }
  // `format: binary` beside 3.1's `contentMediaType`: most generators type a file by the former.
  for (const file of spec.files)
    properties[`${spec.key}[${file}]`] = {
      type: 'string',
      format: 'binary',
      contentMediaType: 'application/octet-stream',
      description: 'PNG, JPEG, WebP or GIF (checked by content), at most `MARKETPLACE_MAX_UPLOAD_BYTES`',
    };
  const required = ((payload.required ?? []) as string[]).flatMap((name) =>
    [`${spec.key}[${name}]`, `${spec.key}[${name}][]`].filter((field) => field in properties),
  );
  return {
    schema: {
      type: 'object',
      ...(required.length > 0 && { required }),
      description:
        'The JSON payload as form fields with Rails-style names. A form cannot carry `null` or an ' +
        'empty list: an empty value of a field that takes `null` is `null`, and an empty `name[]` ' +
        'part adds no element (alone, it is the empty list).',
      properties,
    },
    // The image types a file part may be (its content is what the server checks).
    encoding: Object.fromEntries(
      spec.files.map((file) => [`${spec.key}[${file}]`, { contentType: IMAGE_TYPES }]),
    ),
  };
}

/**
 * Keeps the components the document refers to; `XInput` becomes `X` where there is no output `X`,
 * or where the output `X` is the same schema.
 */
function tidyComponents(doc: Json): Json {
  const components = (doc.components as { schemas: Record<string, Json> }).schemas;
  let text = JSON.stringify({ ...doc, components: { ...(doc.components as Json), schemas: {} } });
  const used = new Set<string>();
  const visit = (s: string) => {
    for (const m of s.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const id = m[1] as string;
      if (used.has(id) || !components[id]) continue;
      used.add(id);
      visit(JSON.stringify(components[id]));
    }
  };
  visit(text);
  const schemas: Record<string, Json> = {};
  const renames: [string, string][] = [];
  for (const id of [...used].sort()) {
    const plain = id.endsWith('Input') ? id.slice(0, -'Input'.length) : id;
    // An input the same as its output (a set of values: `PlatformId`) is that one component.
    const sameAsOutput =
      used.has(plain) && JSON.stringify(components[id]) === JSON.stringify(components[plain]);
    const name =
      plain !== id && (!used.has(plain) || sameAsOutput) && componentById(plain) !== undefined ? plain : id;
    if (name !== id) renames.push([id, name]);
    // zod leaves `examples` out of input schemas: the payload examples come from the registry.
    // A resource's fields say what they mean (RESOURCE_FIELD_DESCRIPTIONS).
    const found = componentById(name);
    const schema = found
      ? withFieldDescriptions(components[id] as Json, found.schema)
      : (components[id] as Json);
    schemas[name] = { ...schema, ...(found && { examples: found.meta.examples }) };
  }
  text = JSON.stringify({ ...doc, components: { ...(doc.components as Json), schemas } });
  for (const [from, to] of renames)
    text = text.replaceAll(`"#/components/schemas/${from}"`, `"#/components/schemas/${to}"`);
  const out = JSON.parse(text) as Json;
  const sorted = (out.components as { schemas: Record<string, Json> }).schemas;
  (out.components as Json).schemas = Object.fromEntries(
    Object.keys(sorted)
      .sort()
      .map((k) => [k, sorted[k]]),
  );
  return out;
}

/** What a `date-time` of the contract is, said in words where zod wrote it as a `pattern`. */
const UTC_TIMESTAMP = 'ISO 8601 timestamp in UTC, ending in `Z` (e.g. `2026-11-21T10:15:30.123Z`)';

/**
 * The zod → JSON Schema settings: the converter reads the contract's registry for names, so a
 * field's own description (`.meta({ description })`, zod's global registry: what the MCP tools and
 * the CLI show) is added here. The rest is what the converter does by default for OpenAPI 3.1:
 * a union loses its empty branches. Two of zod's keywords are said otherwise, for generators:
 * - an array's `maxItems` goes into its description: dtsgenerator (openapi-client-axios-typegen)
 *   types any array with `maxItems` as a tuple of that length (`countries`: 250 elements, and a
 *   `CountryCode[]` no longer fits it); the server still answers `422` past the limit;
 * - a `format` stands alone: zod writes its own regex of the format (`date-time`, `email`) as a
 *   `pattern` beside it, and validating generators (openapi-zod-client) checked both. What the
 *   regex of a timestamp said beyond `date-time` (UTC, `Z`) is in its description.
 */
const zodToJsonConfig = {
  override: (ctx: { zodSchema: unknown; jsonSchema: Json }) => {
    const def = (ctx.zodSchema as { _zod?: { def?: { type?: string; format?: string; offset?: boolean } } })
      ._zod?.def;
    const schema = ctx.jsonSchema;
    if (def?.type === 'union' && Array.isArray(schema.anyOf))
      schema.anyOf = (schema.anyOf as Json[]).filter((branch) => Object.keys(branch).length > 0);
    const own = z.globalRegistry.get(ctx.zodSchema as z.ZodType)?.description;
    if (typeof own === 'string' && schema.description === undefined) schema.description = own;
    if (schema.type === 'array' && typeof schema.maxItems === 'number') {
      const limit = `At most ${schema.maxItems} entries (more is \`422\`)`;
      schema.description = typeof schema.description === 'string' ? `${schema.description}. ${limit}` : limit;
      delete schema.maxItems;
    }
    if (typeof schema.format === 'string' && schema.pattern !== undefined) {
      delete schema.pattern;
      if (def?.format === 'datetime' && def.offset !== true) schema.description ??= UTC_TIMESTAMP;
    }
    if (schema.type === 'integer' && schema.format === undefined && passesInt32(schema))
      schema.format = 'int64';
    // zod closes an answer's objects; the API adds fields to answers in later versions, which a
    // validating client must take (the SDK's check strips what it does not know).
    if (schema.additionalProperties === false) delete schema.additionalProperties;
  },
};

/**
 * Whether an integer's bounds pass a 32-bit range (zod writes both for every integer):
 * openapi-generator makes an integer without `format: int64` an `int32` in Java, Go and C#,
 * which cannot hold an amount of 10^12.
 */
const passesInt32 = (schema: Json): boolean =>
  (typeof schema.maximum === 'number' && schema.maximum > 2 ** 31 - 1) ||
  (typeof schema.minimum === 'number' && schema.minimum < -(2 ** 31));

/** The document's settings: where the server is, and whether the test helpers are part of it. */
export interface OpenapiSettings {
  baseUrl: string;
  testHelpers: boolean;
}

/** A parameter of an operation, from one property of its params or query JSON Schema. */
function parametersOf(where: 'path' | 'query', schema: Json | undefined): Json[] {
  if (!schema) return [];
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      schema: rest,
      in: where,
      name,
      required: where === 'path' || required.has(name),
      ...(typeof description === 'string' && { description }),
    };
  });
}

/** A JSON Schema as an OpenAPI Schema Object: no `$schema`, and a `$ref` stands alone. */
function schemaObject(schema: Json): Json {
  const { $schema: _dialect, ...rest } = schema;
  return typeof rest.$ref === 'string' ? { $ref: rest.$ref } : rest;
}

/**
 * The operationId of an endpoint: its name in the table in camelCase (`socialAccounts.list` is
 * `socialAccountsList`), an identifier in every language a generator writes. Dots made
 * Zodios and openapi-client-axios callers write `api['organizations.list']()`.
 */
export const operationIdOf = (name: string): string =>
  name.replace(/\.([a-zA-Z])/g, (_, letter: string) => letter.toUpperCase());

/** The operation of an endpoint, before the statuses and headers of the table are added. */
function operationOf(
  e: NamedEndpoint,
  transform: ReturnType<typeof createJsonSchemaTransform>,
  openapiObject: Json,
): Json {
  const url = `${e.path.replace(/:([a-z_]+)/g, '{$1}')}.json`;
  const { schema } = transform({
    schema: {
      ...(Object.keys(e.params.shape).length > 0 && { params: e.params }),
      ...(Object.keys(e.query.shape).length > 0 && { querystring: e.query }),
      ...(e.body && { body: bodySchemaOf(e.body) }),
    },
    url,
    route: undefined as never,
    openapiObject: openapiObject as never,
  } as never) as { schema: { params?: Json; querystring?: Json; body?: Json } };
  const parameters = [...parametersOf('query', schema.querystring), ...parametersOf('path', schema.params)];
  return {
    operationId: operationIdOf(e.name),
    summary: e.summary,
    tags: [e.name.split('.')[0] as string],
    ...(schema.body && {
      requestBody: { required: true, content: { 'application/json': { schema: schemaObject(schema.body) } } },
    }),
    ...(parameters.length > 0 && { parameters }),
    security: [e.access === 'test-helpers' ? { testHelpersKey: [] } : { bearerAuth: [] }],
  };
}

/** The OpenAPI document of a server with these settings, from the table and the zod schemas. */
export function buildOpenapiDocument({ baseUrl, testHelpers }: OpenapiSettings): Json {
  const openapiObject: Json = {
    openapi: '3.1.0',
    info: {
      title: 'Creator Marketplace API',
      version: '1.0.0',
      description:
        'JSON REST interface for collabs, campaigns, organizations, memberships and the authenticated ' +
        "user's own resources. Every path answers with the `.json` suffix, as documented here (or " +
        'with `Accept: application/json`). Authenticate with `Authorization: Bearer <token>`. Lists ' +
        'are paginated by `page` (20 items a page, headers `Current-Page`, `Page-Items`, ' +
        '`Total-Count`, `Total-Pages`). Shows send a weak `ETag` and answer `304` to `If-None-Match`.',
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { name: 'Creator Marketplace API maintainers' },
    },
    components: {
      headers: { [REQUEST_ID_HEADER_NAME]: requestIdHeader, ...paginationHeaders },
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Personal access token (`mkt_…`)' },
        ...(testHelpers && {
          testHelpersKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'The sandbox key, `MARKETPLACE_TEST_HELPERS_KEY`',
          },
        }),
      },
    },
    paths: {},
    servers: [{ url: baseUrl, description: 'This server' }],
    tags: Object.entries(TAGS)
      .filter(([name]) => testHelpers || name !== 'testHelpers')
      .map(([name, description]) => ({ name, description })),
  };
  const toObject = createJsonSchemaTransformObject({ schemaRegistry: contractRegistry, zodToJsonConfig });
  const toSchema = createJsonSchemaTransform({
    skipList: [],
    schemaRegistry: contractRegistry,
    zodToJsonConfig,
  });
  const doc = toObject({ openapiObject } as never) as unknown as Json;
  const components = ((doc.components as Json).schemas ?? {}) as Record<string, Json>;
  const paths: Record<string, Json> = {};
  for (const e of [...publicEndpoints, ...(testHelpers ? testHelperEndpointList : [])]) {
    const url = `${e.path.replace(/:([a-z_]+)/g, '{$1}')}.json`;
    const op = operationOf(e, toSchema, openapiObject);
    op.responses = responsesOf(e);
    op.description = endpointDescription(e);
    const parameters = (op.parameters ?? []) as Json[];
    for (const p of parameters)
      if (p.in === 'query' && p.name === 'page')
        p.description = 'Page to return, from 1 (default 1); a page past the last is an empty list';
    if (e.etag)
      parameters.push({
        in: 'header',
        name: 'If-None-Match',
        required: false,
        description: 'ETags of copies the client holds (a list, or `*`): a match gives `304`',
        schema: { type: 'string' },
      });
    if (e.idempotent)
      parameters.push({
        in: 'header',
        name: 'Idempotency-Key',
        required: false,
        description:
          'Makes the request safe to send again (1 to 255 printable ASCII characters, e.g. a UUID), ' +
          "scoped to the token's user and kept 24 hours: the same key with the same method, path and " +
          'payload answers the stored answer with `Idempotent-Replayed: true` and does nothing again; ' +
          'with another request it is `422`; while the first is running, `409`. 5xx answers are not stored.',
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
      });
    if (parameters.length > 0) op.parameters = parameters;
    const body = op.requestBody as { content: Record<string, { schema: Json }> } | undefined;
    const jsonBody = body?.content['application/json'];
    if (body && e.body && !e.body.required) (body as Json).required = false;
    if (body && jsonBody) {
      const multipart = multipartOf(e, jsonBody.schema, components);
      if (multipart) body.content['multipart/form-data'] = multipart;
    }
    paths[url] = { ...paths[url], [e.method.toLowerCase()]: op };
  }
  return tidyComponents({ ...doc, paths });
}
