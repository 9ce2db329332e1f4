/**
 * The OpenAPI document comes from the endpoint table and the zod schemas alone: building it must
 * not build the app (no fake ORM, no plugins, no routes registered).
 */
import { publicEndpoints } from '@app/schemas';
import { expect, it, vi } from 'vitest';

vi.mock('../src/app.js', () => ({
  buildApp: () => {
    throw new Error('the OpenAPI document must not build the app');
  },
}));

const { openapiDocument } = await import('../src/openapi-document.js');
const { operationIdOf } = await import('../src/http/openapi.js');

it('is built from the table and the zod schemas, without the app', async () => {
  const doc = JSON.parse(await openapiDocument());
  expect(doc.openapi).toBe('3.1.0');
  const operations = Object.values(
    doc.paths as Record<string, Record<string, { operationId: string }>>,
  ).flatMap((item) => Object.values(item).map((op) => op.operationId));
  expect(operations.sort()).toEqual(publicEndpoints.map((e) => operationIdOf(e.name)).sort());
  // camelCase identifiers: no dots for a generator to quote (`api['organizations.list']`).
  expect(operations).toContain('socialAccountsList');
  for (const id of operations) expect(id).toMatch(/^[a-z][A-Za-z]*$/);
});

it("carries a field's own description (the one the MCP tools and the CLI show) into the document", async () => {
  const doc = JSON.parse(await openapiDocument());
  expect(doc.components.schemas.OrganizationUpdate.properties.purge_logo.description).toBe(
    '"1" removes the attached file',
  );
  const prefill = doc.paths['/organizations/{organization_id}/collabs.json'].post.parameters.find(
    (p: { name: string }) => p.name === 'website',
  );
  expect(prefill.description).toMatch(/^A product page/);
  expect(prefill.schema.description).toBeUndefined();
});
