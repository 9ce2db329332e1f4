/**
 * `pnpm openapi`: writes the committed `openapi.json` (repository root) from the server.
 * `--test-helpers <file>` writes the document with the test helpers to `<file>` instead.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { OPENAPI_PATH, openapiDocument } from '../src/openapi-document.js';

const i = process.argv.indexOf('--test-helpers');
const out =
  i === -1 ? resolve(import.meta.dirname, '../../..', OPENAPI_PATH) : resolve(process.argv[i + 1] ?? '');
writeFileSync(out, await openapiDocument({ testHelpers: i !== -1 }));
console.log(`wrote ${out}`);
