/**
 * `src/field-docs.ts` is written from `FIELD_DESCRIPTIONS` and `RESOURCE_FIELD_DESCRIPTIONS`: one
 * optional property per field, whose JSDoc is the field's description, so that an editor shows it
 * on hover over a payload or query field of the SDK (its payload types carry `FieldDocs`) and over
 * a field of a resource it returns (the resource types carry `ResourceFieldDocs`). The
 * descriptions have one source; after changing them, `vitest run --project schemas -u` rewrites
 * the file.
 */
import { expect, test } from 'vitest';
import { FIELD_DESCRIPTIONS } from '../src/field-descriptions.js';
import { RESOURCE_FIELD_DESCRIPTIONS } from '../src/resource-field-descriptions.js';

/** Each field of `descriptions` as an optional `unknown` property with its JSDoc, `indent` deep. */
function documented(descriptions: Readonly<Record<string, string>>, indent: string): string[] {
  return Object.entries(descriptions).flatMap(([field, description]) => {
    if (description.includes('*/')) throw new Error(`${field}: a description cannot hold "*/"`);
    return [`${indent}/** ${description} */`, `${indent}${field}?: unknown;`];
  });
}

function fieldDocs(): string {
  return [
    '// Written from FIELD_DESCRIPTIONS (field-descriptions.ts) and RESOURCE_FIELD_DESCRIPTIONS',
    '// (resource-field-descriptions.ts) by test/field-docs.test.ts; do not edit.',
    '// After changing a description: `vitest run --project schemas -u`.',
    '',
    '/**',
    " * Each request field's description (`FIELD_DESCRIPTIONS`) as the JSDoc an editor shows on hover:",
    " * the SDK's payload and query types are intersected with the fields of this interface they have.",
    ' */',
    'export interface FieldDocs {',
    ...documented(FIELD_DESCRIPTIONS, '  '),
    '}',
    '',
    '/**',
    " * Each field of each resource the API returns (`RESOURCE_FIELD_DESCRIPTIONS`), by the resource's",
    " * component id, as the JSDoc an editor shows on hover: each resource type is its schema's",
    ' * inferred type `Described` by its entry here (`Collab`, and so what `client.collabs.retrieve()`',
    ' * resolves to). An interface, not JSDoc in the schemas: TypeScript keeps the JSDoc of an interface',
    " * in the declarations it emits (the published packages'), not that of a `z.object()`'s argument.",
    ' */',
    'export interface ResourceFieldDocs {',
    ...Object.entries(RESOURCE_FIELD_DESCRIPTIONS).flatMap(([resource, fields]) => [
      `  ${resource}: {`,
      ...documented(fields, '    '),
      '  };',
    ]),
    '}',
    '',
  ].join('\n');
}

test('src/field-docs.ts is FIELD_DESCRIPTIONS and RESOURCE_FIELD_DESCRIPTIONS as JSDoc', async () => {
  await expect(fieldDocs()).toMatchFileSnapshot('../src/field-docs.ts');
});
