import { describe, expect, it } from 'vitest';
import contract from '../contract/endpoints.json' with { type: 'json' };
import { publicEndpoints, testHelperEndpointList } from '../src/index.js';

const key = (e: { method: string; path: string }) => `${e.method} ${e.path}.json`;

describe('the endpoint table', () => {
  const table = new Set(publicEndpoints.map(key));
  const helpers = new Set(testHelperEndpointList.map(key));

  it.each(contract.spec)('has the spec endpoint %s', (endpoint) => {
    expect(table).toContain(endpoint);
  });

  it.each(contract.transitions)('has the transition %s', (endpoint) => {
    expect(table).toContain(endpoint);
  });

  it.each(contract.testHelpers)('has the test helper %s', (endpoint) => {
    expect(helpers).toContain(endpoint);
  });

  it('has nothing the committed list does not name', () => {
    const listed = new Set([...contract.spec, ...contract.transitions, ...contract.testHelpers]);
    expect([...table, ...helpers].filter((e) => !listed.has(e))).toEqual([]);
  });

  it('names every endpoint once', () => {
    const all = [...publicEndpoints, ...testHelperEndpointList];
    expect(new Set(all.map(key)).size).toBe(all.length);
    expect(new Set(all.map((e) => e.name)).size).toBe(all.length);
  });

  it('gives each kind of endpoint the status, scope and options the spec says', () => {
    for (const e of publicEndpoints) {
      if (e.method === 'GET') {
        expect(e.scope, e.name).toBe('read');
        expect(e.paginated, e.name).toBe(e.response instanceof Object && !e.etag);
      } else {
        expect(e.scope, e.name).toBe('write');
        expect(e.etag, e.name).toBe(false);
      }
      if (e.method === 'DELETE') expect(e.status).toBe(204);
      if (e.path.endsWith('/submit') || e.path.endsWith('/publish')) expect(e.status).toBe(303);
      if (e.status === 204 || e.status === 303) expect(e.response).toBeUndefined();
      else expect(e.response).toBeDefined();
    }
  });

  it('wraps every request body in the resource key except the notification settings', () => {
    const flat = publicEndpoints.filter((e) => e.body && e.body.key === null).map((e) => e.name);
    expect(flat).toEqual(['notificationSettings.update']);
  });
});
