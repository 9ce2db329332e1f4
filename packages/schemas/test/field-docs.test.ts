/**
 * `src/field-docs.ts` is written from `FIELD_DESCRIPTIONS`: one optional property per field, whose
 * JSDoc is the field's description, so that an editor shows it on hover over a payload or query
 * field of the SDK (its payload types carry `FieldDocs`). The descriptions have one source; after
 * changing them, `vitest run --project schemas -u` rewrites the file.
 */
import { expect, test } from 'vitest';
import { FIELD_DESCRIPTIONS } from '../src/field-descriptions.js';

function fieldDocs(): string {
  const lines = [
    '// Written from FIELD_DESCRIPTIONS (field-descriptions.ts) by test/field-docs.test.ts; do not edit.',
    '// After changing a description: `vitest run --project schemas -u`.',
    '',
    '/**',
    " * Each request field's description (`FIELD_DESCRIPTIONS`) as the JSDoc an editor shows on hover:",
    " * the SDK's payload and query types are intersected with the fields of this interface they have.",
    ' */',
    'export interface FieldDocs {',
  ];
  for (const [field, description] of Object.entries(FIELD_DESCRIPTIONS)) {
    if (description.includes('*/')) throw new Error(`${field}: a description cannot hold "*/"`);
    lines.push(`  /** ${description} */`, `  ${field}?: unknown;`);
  }
  lines.push('}', '');
  return lines.join('\n');
}

test('src/field-docs.ts is FIELD_DESCRIPTIONS as JSDoc', async () => {
  await expect(fieldDocs()).toMatchFileSnapshot('../src/field-docs.ts');
});
