/**
 * What third-party generators (hey-api, orval, Kubb, openapi-typescript) make of the document
 * (issue #29): every answer typed, every multipart field listed, the sets the server knows as
 * enums, no component named like a JavaScript global, and the transitions' `303` explained.
 * Their generated clients run against the server in `pnpm test:generated-clients`.
 */
import {
  COUNTRY_CODES,
  CollabCreate,
  CURRENCY_CODES,
  contractRegistry,
  type NamedEndpoint,
  publicEndpoints,
  testHelperEndpointList,
} from '@app/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { openapiDocument } from '../src/openapi-document.js';

// biome-ignore lint/suspicious/noExplicitAny: the parsed document, walked by its documented shape
type Json = Record<string, any>;

let doc: Json;
beforeAll(async () => {
  doc = JSON.parse(await openapiDocument({ testHelpers: true }));
});

const operationOf = (e: NamedEndpoint): Json =>
  doc.paths[`${e.path.replace(/:([a-z_]+)/g, '{$1}')}.json`][e.method.toLowerCase()];

/** A `$ref` to a component, followed. */
const resolve = (schema: Json): Json =>
  typeof schema.$ref === 'string' ? doc.components.schemas[schema.$ref.split('/').pop() as string] : schema;

/** Calls `visit` on every object of `node` (the document, or a part of it), with its JSON pointer. */
function walk(node: unknown, at: string, visit: (node: Json, at: string) => void): void {
  if (node === null || typeof node !== 'object') return;
  if (!Array.isArray(node)) visit(node as Json, at);
  for (const [key, value] of Object.entries(node)) walk(value, `${at}/${key}`, visit);
}

describe('the document as generators read it', () => {
  it('names no component like a JavaScript global (`Error` shadowed the global in every client)', () => {
    const names = Object.keys(doc.components.schemas);
    expect(names).toContain('ErrorBody');
    expect(names.filter((name) => name in globalThis)).toEqual([]);
  });

  it('types every JSON answer, the test helpers included (six were `{}`)', () => {
    const untyped: string[] = [];
    for (const e of [...publicEndpoints, ...testHelperEndpointList])
      for (const [status, answer] of Object.entries(operationOf(e).responses as Json)) {
        const schema = answer.content?.['application/json']?.schema;
        if (schema && Object.keys(schema).length === 0) untyped.push(`${e.name} ${status}`);
      }
    expect(untyped).toEqual([]);
    const created = operationOf(
      testHelperEndpointList.find((e) => e.name === 'testHelpers.createUser') as NamedEndpoint,
    );
    expect(resolve(created.responses['201'].content['application/json'].schema).required).toEqual([
      'user',
      'access_token',
    ]);
  });

  it('lists every field of an upload body in its multipart form (collabs.create listed only the banner)', () => {
    const uploads = [...publicEndpoints].filter((e) => (e.body?.files.length ?? 0) > 0);
    expect(uploads.map((e) => e.name)).toEqual([
      'organizations.create',
      'organizations.update',
      'collabs.create',
      'collabs.update',
      'campaigns.create',
      'campaigns.update',
    ]);
    for (const e of uploads) {
      const key = e.body?.key as string;
      const content = operationOf(e).requestBody.content;
      const wrapper = content['application/json'].schema;
      const object = (wrapper.anyOf ?? [wrapper]).find((s: Json) => s.type === 'object');
      const payload = resolve(object.properties[key]);
      const form = Object.keys(content['multipart/form-data'].schema.properties);
      const expected = Object.entries(payload.properties as Json).map(
        ([name, schema]) => `${key}[${name}]${schema.type === 'array' ? '[]' : ''}`,
      );
      expect(form, e.name).toEqual(expect.arrayContaining(expected));
      for (const file of e.body?.files ?? []) expect(form, e.name).toContain(`${key}[${file}]`);
    }
  });

  it('names each set of values once, as a component every use refers to (currencies and countries were repeated in eight and nine places: orval made a type of each)', () => {
    const schemas = doc.components.schemas;
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    const currencies = [...CURRENCY_CODES].sort();
    const countries = [...COUNTRY_CODES].sort();
    expect(currencies).toContain('usd');
    expect(schemas.CurrencyCode.enum).toEqual(currencies);
    expect(schemas.CountryCode.enum).toEqual(countries);
    expect(schemas.PlatformId.enum).toEqual(['youtube', 'x', 'twitch', 'tiktok', 'instagram']);
    for (const name of ['CollabCreate', 'CollabUpdate', 'CampaignCreate', 'CampaignUpdate']) {
      expect(schemas[name].properties.currency, name).toEqual(ref('CurrencyCode'));
      expect(schemas[name].properties.countries.items, name).toEqual(ref('CountryCode'));
    }
    expect(schemas.AddressUpdate.properties.country_code).toEqual(ref('CountryCode'));
    expect(schemas.CampaignCreate.properties.platform_ids.items).toEqual(ref('PlatformId'));
    expect(schemas.Campaign.properties.platform_ids.items).toEqual(ref('PlatformId'));
    // The multipart forms of uploads too.
    const form =
      doc.paths['/organizations/{organization_id}/campaigns.json'].post.requestBody.content[
        'multipart/form-data'
      ].schema.properties;
    expect(form['campaign[currency]']).toEqual(ref('CurrencyCode'));
    expect(form['campaign[countries][]'].items).toEqual(ref('CountryCode'));
    expect(form['campaign[platform_ids][]'].items).toEqual(ref('PlatformId'));
    // A subset keeps its own list where it stands.
    expect(schemas.SocialAccountCreate.properties.platform_id.enum).toEqual(['youtube', 'x', 'twitch']);
    // Every set of the resources is listed once in the whole document, input and output alike.
    const text = JSON.stringify(doc);
    for (const name of [
      'CurrencyCode',
      'CountryCode',
      'PlatformId',
      'PrivacySetting',
      'Role',
      'Permission',
      'CollabState',
      'CampaignStatus',
      'SocialAccountStatus',
    ])
      expect(text.split(JSON.stringify(schemas[name].enum)).length - 1, name).toBe(1);
    expect(Object.keys(schemas).filter((name) => name.endsWith('Input'))).toEqual([]);
  });

  it('types the text of a form field the server reads as a boolean or an integer, and the image types of a file part (they were any string)', () => {
    const content = (path: string) => doc.paths[path].post.requestBody.content['multipart/form-data'] as Json;
    const collab = content('/organizations/{organization_id}/collabs.json');
    expect(collab.schema.properties['collab[require_boosted_ads]']).toEqual({
      type: 'string',
      enum: ['true', 'false', '1', '0'],
    });
    const campaign = content('/organizations/{organization_id}/campaigns.json');
    expect(campaign.schema.properties['campaign[cpm_amount]']).toEqual({
      type: 'string',
      pattern: '^-?[0-9]+$',
    });
    expect(campaign.encoding).toEqual({
      'campaign[banner_image]': { contentType: 'image/png, image/jpeg, image/webp, image/gif' },
    });
  });

  it('describes every parameter, each path id by its resource (39 path parameters had no description)', () => {
    const undescribed: string[] = [];
    for (const e of [...publicEndpoints, ...testHelperEndpointList])
      for (const parameter of (operationOf(e).parameters ?? []) as Json[])
        if (typeof parameter.description !== 'string' || parameter.description === '')
          undescribed.push(`${e.name} ${parameter.name}`);
    expect(undescribed).toEqual([]);
    const show = operationOf(publicEndpoints.find((x) => x.name === 'collabs.retrieve') as NamedEndpoint);
    expect(show.parameters.slice(0, 2).map((p: Json) => [p.name, p.description])).toEqual([
      ['organization_id', "The organization's id"],
      ['id', "The collab's id"],
    ]);
  });

  it('leaves the long enums out of zod’s global registry, which the CLI and the MCP tools print inline', () => {
    const plain = z.toJSONSchema(CollabCreate, { io: 'input' }) as Json;
    expect(plain.properties.currency.description).toContain('ISO 4217');
    expect(plain.properties.currency.enum).toBeUndefined();
  });

  it("says what following a transition's 303 gives, and declares it as a 200 (it said the page answers 406)", () => {
    const transitions = publicEndpoints.filter((e) => e.status === 303);
    expect(transitions).toHaveLength(6);
    for (const e of transitions) {
      const op = operationOf(e);
      expect(op.description, e.name).toContain('follows the redirect');
      expect(op.description, e.name).toContain('Accept: application/json');
      expect(op.description, e.name).toContain("redirect: 'manual'");
      expect(op.description, e.name).not.toContain('Do not follow');
      const shown = e.show?.response && contractRegistry.get(e.show.response)?.id;
      expect(shown, e.name).toMatch(/^(Collab|Campaign)$/);
      // The show it reads sends its ETag (it was not declared there).
      expect(Object.keys(op.responses['200'].headers), e.name).toEqual(['ETag', 'X-Request-Id']);
      expect(op.responses['200'].content['application/json'].schema, e.name).toEqual({
        $ref: `#/components/schemas/${shown}`,
      });
      expect(op.responses['303'].content, e.name).toBeUndefined();
      // openapi-fetch, hey-api and orval's fetch client send no Accept: the page they follow to
      // answers 406 without it (the 303's own text said a client that follows it reads the 200).
      expect(op.responses['303'].description, e.name).toContain('Accept: application/json');
    }
  });

  it('names, on a delete of a draft, the 403 that its state gives (it named only the role)', () => {
    for (const name of ['collabs.delete', 'campaigns.delete']) {
      const e = publicEndpoints.find((x) => x.name === name) as NamedEndpoint;
      const noun = name.split('s.')[0];
      expect(operationOf(e).responses['403'].description).toContain(`the ${noun} is no longer a draft`);
      expect(operationOf(e).description).toContain(`\`403\` too when the ${noun} is no longer a draft`);
    }
    const membersDelete = publicEndpoints.find((x) => x.name === 'members.delete') as NamedEndpoint;
    expect(operationOf(membersDelete).responses['403'].description).toBe(
      'The caller is a member whose role does not allow this',
    );
  });

  it('gives `website` no `format: uri`: it is echoed as sent, and may be an IRI', () => {
    const schemas = doc.components.schemas;
    for (const name of ['Organization', 'Collab', 'CollabSummary', 'Campaign', 'CampaignSummary']) {
      const website = schemas[name].properties.website;
      expect(JSON.stringify(website), name).not.toContain('"format"');
      expect(
        website.anyOf.map((s: Json) => s.type),
        name,
      ).toEqual(['string', 'null']);
    }
    expect(schemas.Organization.properties.url.format).toBe('uri');
  });

  it('types upload fields as binary and lists the required form fields', () => {
    const form = (path: string, method: string) =>
      doc.paths[path][method].requestBody.content['multipart/form-data'].schema;
    const create = form('/organizations.json', 'post');
    expect(create.properties['organization[logo]']).toMatchObject({
      type: 'string',
      format: 'binary',
      contentMediaType: 'application/octet-stream',
    });
    expect(create.required).toEqual(['organization[name]']);
    expect(form('/organizations/{id}.json', 'patch').required).toBeUndefined();
    expect(form('/organizations/{organization_id}/collabs.json', 'post').required).toBeUndefined();
  });

  it('declares X-Request-Id on every answer, and pages from 1 in headers every list refers to (each list repeated the four)', () => {
    expect(doc.components.headers['X-Request-Id'].schema).toEqual({ type: 'string' });
    for (const e of [...publicEndpoints, ...testHelperEndpointList])
      for (const [status, answer] of Object.entries(operationOf(e).responses as Json))
        expect(answer.headers?.['X-Request-Id'], `${e.name} ${status}`).toEqual({
          $ref: '#/components/headers/X-Request-Id',
        });
    for (const e of publicEndpoints.filter((x) => x.paginated))
      expect(operationOf(e).responses['200'].headers, e.name).toMatchObject({
        'Current-Page': { $ref: '#/components/headers/Current-Page' },
        'Page-Items': { $ref: '#/components/headers/Page-Items' },
        'Total-Count': { $ref: '#/components/headers/Total-Count' },
        'Total-Pages': { $ref: '#/components/headers/Total-Pages' },
      });
    const page = doc.components.headers;
    expect(page['Current-Page'].schema.minimum).toBe(1);
    expect(page['Total-Pages'].schema.minimum).toBe(1);
    expect(page['Total-Count'].schema.minimum).toBe(0);
  });

  it("names, in ErrorBody's description, every status answered with it", () => {
    const statuses = new Set<string>();
    for (const e of [...publicEndpoints, ...testHelperEndpointList])
      for (const [status, answer] of Object.entries(operationOf(e).responses as Json))
        if (answer.content?.['application/json']?.schema?.$ref === '#/components/schemas/ErrorBody')
          statuses.add(status);
    const described = doc.components.schemas.ErrorBody.description.match(/\d{3}/g);
    expect(described).toEqual([...statuses].sort());
  });

  it('gives no array a `maxItems`, and says the limit in its description (openapi-client-axios-typegen typed `countries` as a tuple of 250 codes, a `platform_ids` as one of 5)', () => {
    const bounded: string[] = [];
    walk(doc, '', (node, at) => {
      if (node.maxItems !== undefined) bounded.push(at);
    });
    expect(bounded).toEqual([]);
    const schemas = doc.components.schemas;
    for (const name of ['CollabCreate', 'CollabUpdate', 'CampaignCreate', 'CampaignUpdate'])
      expect(schemas[name].properties.countries, name).toMatchObject({
        type: 'array',
        minItems: 1,
        description: expect.stringContaining('At most 250 entries'),
      });
    for (const name of ['CampaignCreate', 'CampaignUpdate'])
      expect(schemas[name].properties.platform_ids.description, name).toContain('At most 250 entries');
    // The multipart form's list says it too.
    const form =
      doc.paths['/organizations/{organization_id}/campaigns.json'].post.requestBody.content[
        'multipart/form-data'
      ].schema.properties;
    expect(form['campaign[countries][]'].description).toContain('At most 250 entries');
  });

  it('types every integer that can pass 2^31 as `format: int64` (openapi-generator makes a plain integer an int32 in Java, Go and C#, which cannot hold an amount of 10^12)', () => {
    const narrow: string[] = [];
    walk(doc, '', (node, at) => {
      if (node.type !== 'integer') return;
      const wide = (node.maximum ?? 0) > 2 ** 31 - 1 || (node.minimum ?? 0) < -(2 ** 31);
      if (wide !== (node.format === 'int64')) narrow.push(`${at} ${node.format ?? '(none)'}`);
    });
    expect(narrow).toEqual([]);
    expect(doc.components.schemas.CampaignCreate.properties.cpm_amount).toMatchObject({
      type: 'integer',
      format: 'int64',
      maximum: 1_000_000_000_000,
    });
  });

  it('leaves every object open to fields a later version adds (`additionalProperties: false` on each answer made a strict validator refuse them)', () => {
    const closed: string[] = [];
    walk(doc, '', (node, at) => {
      if (node.additionalProperties === false) closed.push(at);
    });
    expect(closed).toEqual([]);
  });

  it('writes a `format` without the `pattern` zod puts beside it (validating generators checked each timestamp twice, with a regex and as a date-time)', () => {
    const doubled: string[] = [];
    const formats = new Set<string>();
    walk(doc, '', (node, at) => {
      if (typeof node.format !== 'string') return;
      formats.add(node.format);
      if (node.pattern !== undefined) doubled.push(`${at} ${node.format}`);
    });
    expect(doubled).toEqual([]);
    expect([...formats].sort()).toEqual(['binary', 'date-time', 'email', 'int64', 'uri']);
    const createdAt = doc.components.schemas.Collab.properties.created_at;
    expect(createdAt).toEqual({
      type: 'string',
      format: 'date-time',
      description: expect.stringContaining('UTC'),
    });
  });

  it('documents 415 only where a body is read', () => {
    for (const e of [...publicEndpoints, ...testHelperEndpointList])
      expect(Object.hasOwn(operationOf(e).responses, '415'), e.name).toBe(e.body !== undefined);
  });
});
