import { endpointDescription, publicEndpoints, testHelperEndpointList } from '@app/schemas';
import { describe, expect, it } from 'vitest';
import { operationIdOf } from '../src/http/openapi.js';
import { useTestServer } from './harness.js';

const server = useTestServer();

describe('GET /openapi.json', () => {
  it('documents every endpoint of the table, with the .json paths, as OpenAPI 3.1', async () => {
    const res = await server.get('/openapi.json');
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    for (const e of [...publicEndpoints, ...testHelperEndpointList]) {
      const path = `${e.path.replace(/:([a-z_]+)/g, '{$1}')}.json`;
      const operation = doc.paths[path]?.[e.method.toLowerCase()];
      expect(operation, `${e.method} ${path}`).toBeDefined();
      expect(operation.operationId).toBe(operationIdOf(e.name));
      if (e.response) expect(operation.responses[String(e.status)], e.name).toBeDefined();
    }
  });

  it('describes request bodies from the same schemas', async () => {
    const doc = (await server.get('/openapi.json')).json();
    const body = doc.paths['/organizations.json'].post.requestBody.content['application/json'].schema;
    expect(body.properties.organization).toEqual({ $ref: '#/components/schemas/OrganizationCreate' });
    const payload = doc.components.schemas.OrganizationCreate;
    expect(payload.properties.privacy_setting).toEqual({
      default: 'private',
      $ref: '#/components/schemas/PrivacySetting',
    });
    expect(doc.components.schemas.PrivacySetting.enum).toEqual(['public', 'private', 'restricted']);
    expect(body.required).toEqual(['organization']);
  });

  it('documents every status, with its body and headers, from the endpoint table', async () => {
    const doc = (await server.get('/openapi.json')).json();
    for (const e of [...publicEndpoints, ...testHelperEndpointList]) {
      const op = doc.paths[`${e.path.replace(/:([a-z_]+)/g, '{$1}')}.json`][e.method.toLowerCase()];
      const codes = Object.keys(op.responses);
      expect(codes, e.name).toEqual(
        expect.arrayContaining([String(e.status), '400', '401', '404', '406', '503']),
      );
      // The summary is the operation's `summary`; the description is the prose under it.
      expect(op.summary, e.name).toBe(e.summary);
      expect(op.description, e.name).toBe(endpointDescription(e));
      expect(op.description.startsWith(e.summary), e.name).toBe(false);
      expect(op.responses['503'].headers['Retry-After'], e.name).toBeDefined();
      expect(Object.keys(op.responses['401'].content), e.name).toEqual(['text/plain']);
      if (e.access !== 'test-helpers')
        expect(op.responses['401'].headers['WWW-Authenticate'], e.name).toBeDefined();
      if (e.status === 204 || e.status === 303)
        expect(op.responses[String(e.status)].content, e.name).toBeUndefined();
      if (e.status === 303) expect(op.responses['303'].headers.Location, e.name).toBeDefined();
      if (e.paginated) {
        expect(Object.keys(op.responses['200'].headers), e.name).toEqual([
          'Current-Page',
          'Page-Items',
          'Total-Count',
          'Total-Pages',
          'X-Request-Id',
        ]);
        expect(op.parameters.find((p: { name: string }) => p.name === 'page').description).toBeTruthy();
      }
      if (e.etag) {
        expect(op.responses['304'].headers.ETag, e.name).toBeDefined();
        expect(op.responses['200'].headers.ETag, e.name).toBeDefined();
        expect(
          op.parameters.map((p: { name: string }) => p.name),
          e.name,
        ).toContain('If-None-Match');
      }
      expect(op.responses['404'].content === undefined, e.name).toBe(e.emptyNotFound);
      expect(Boolean(op.responses['422']), e.name).toBe(e.method !== 'GET' || e.paginated);
      if (e.body) expect(Object.keys(op.responses), e.name).toEqual(expect.arrayContaining(['413', '415']));
    }
  });

  it('names every resource, payload and error body as a component, with an example, and refers to it', async () => {
    const doc = (await server.get('/openapi.json')).json();
    const schemas = doc.components.schemas;
    for (const name of [
      'Organization',
      'OrganizationCreate',
      'Collab',
      'CollabSummary',
      'ErrorBody',
      'ValidationErrors',
    ])
      expect(schemas[name]?.examples?.length, name).toBe(1);
    const list = doc.paths['/organizations/{organization_id}/collabs.json'].get;
    expect(list.responses['200'].content['application/json'].schema).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/CollabSummary' },
    });
    const upload = doc.paths['/organizations/{id}.json'].patch.requestBody.content['multipart/form-data'];
    expect(upload.schema.properties['organization[logo]'].contentMediaType).toBe('application/octet-stream');
  });

  it('serves the reference page at /docs with its own script (no CDN), without a token', async () => {
    expect((await server.app.inject({ url: '/docs' })).headers.location).toBe('/docs/');
    const page = await server.app.inject({ url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('/openapi.json');
    expect(page.body).toContain('src="js/scalar.js"');
    expect(page.body).not.toMatch(/src="https?:/);
    const script = await server.app.inject({ url: '/docs/js/scalar.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toContain('javascript');
    const doc = (await server.get('/openapi.json')).json();
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/docs'))).toEqual([]);
  });
});
