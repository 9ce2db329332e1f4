import { publicEndpoints, testHelperEndpointList } from '@app/schemas';
import { describe, expect, it } from 'vitest';
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
      expect(operation.operationId).toBe(e.name);
      if (e.response) expect(operation.responses[String(e.status)], e.name).toBeDefined();
    }
  });

  it('describes request bodies from the same schemas', async () => {
    const doc = (await server.get('/openapi.json')).json();
    const body = doc.paths['/organizations.json'].post.requestBody.content['application/json'].schema;
    expect(body.properties.organization.properties.privacy_setting.enum).toEqual([
      'public',
      'private',
      'restricted',
    ]);
    expect(body.required).toEqual(['organization']);
  });
});
