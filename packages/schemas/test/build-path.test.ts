import { describe, expect, it } from 'vitest';
import { buildPath, endpoints } from '../src/index.js';

describe('buildPath', () => {
  it('fills every parameter, percent-encoded, and adds .json', () => {
    expect(buildPath(endpoints.collabs.retrieve.path, { organization_id: 'Org1', id: 'a/b c?' })).toBe(
      '/organizations/Org1/collabs/a%2Fb%20c%3F.json',
    );
    expect(buildPath(endpoints.organizations.list.path, {})).toBe('/organizations.json');
    expect(buildPath('/:a/x/:b_c', { a: '1', b_c: '2' })).toBe('/1/x/2.json');
  });

  it('gives the same path on every call of a template', () => {
    const params = { organization_id: 'Org1', id: 'C1' };
    expect(buildPath(endpoints.collabs.submit.path, params)).toBe(
      buildPath(endpoints.collabs.submit.path, params),
    );
    expect(buildPath(endpoints.collabs.submit.path, { organization_id: 'Org2', id: 'C2' })).toBe(
      '/organizations/Org2/collabs/C2/submit.json',
    );
  });

  it('refuses a missing or empty parameter', () => {
    expect(() => buildPath(endpoints.collabs.retrieve.path, { organization_id: 'Org1' })).toThrow(
      'Missing path parameter "id"',
    );
    expect(() => buildPath(endpoints.collabs.retrieve.path, { organization_id: '', id: 'C1' })).toThrow(
      'Missing path parameter "organization_id"',
    );
  });
});
