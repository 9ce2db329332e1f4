/**
 * @hey-api/openapi-ts: a fetch client generated from the committed `openapi.json`, as an
 * integrator would make one (`pnpm test:generated-clients`).
 */
import { defineConfig } from '@hey-api/openapi-ts';

const here = (path: string) => new URL(path, import.meta.url).pathname;

export default defineConfig({
  input: here('../../../openapi.json'),
  output: here('generated/hey-api'),
  plugins: ['@hey-api/client-fetch'],
});
