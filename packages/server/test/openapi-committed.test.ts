import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { testHelperEndpointList } from '@app/schemas';
import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH, openapiDocument } from '../src/openapi-document.js';

const committedPath = resolve(import.meta.dirname, '../../..', OPENAPI_PATH);

describe('the committed openapi.json', () => {
  it('is what the server generates (run `pnpm openapi` after changing the contract)', async () => {
    const committed = readFileSync(committedPath, 'utf8');
    expect(committed === (await openapiDocument()), 'openapi.json is stale: run `pnpm openapi`').toBe(true);
  });

  it('leaves the test helpers, their tag and their security scheme out; a server with them documents them', async () => {
    const plain = JSON.parse(readFileSync(committedPath, 'utf8'));
    const helpers = JSON.parse(await openapiDocument({ testHelpers: true }));
    const tagsOf = (doc: { tags: { name: string }[] }) => doc.tags.map((t) => t.name);
    expect(tagsOf(plain)).not.toContain('testHelpers');
    expect(plain.components.securitySchemes.testHelpersKey).toBeUndefined();
    expect(JSON.stringify(plain.paths)).not.toContain('/test/');
    expect(tagsOf(helpers)).toContain('testHelpers');
    expect(helpers.components.securitySchemes.testHelpersKey).toBeDefined();
    for (const e of testHelperEndpointList) {
      const op = helpers.paths[`${e.path.replace(/:([a-z_]+)/g, '{$1}')}.json`][e.method.toLowerCase()];
      expect(op.tags, e.name).toEqual(['testHelpers']);
      expect(op.security, e.name).toEqual([{ testHelpersKey: [] }]);
    }
  });
});
