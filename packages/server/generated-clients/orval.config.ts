/**
 * orval: a fetch client (through a small mutator that adds the server's origin and the token, as
 * orval's fetch client leaves both to the integrator) and an axios client, generated from the
 * committed `openapi.json` (`pnpm test:generated-clients`).
 */
import { defineConfig } from 'orval';

const here = (path: string) => new URL(path, import.meta.url).pathname;
const input = here('../../../openapi.json');

export default defineConfig({
  fetch: {
    input,
    output: {
      target: here('generated/orval-fetch/api.ts'),
      client: 'fetch',
      mode: 'single',
      override: { mutator: { path: here('orval-fetch.ts'), name: 'customFetch' } },
    },
  },
  axios: {
    input,
    output: { target: here('generated/orval-axios/api.ts'), client: 'axios', mode: 'single' },
  },
});
