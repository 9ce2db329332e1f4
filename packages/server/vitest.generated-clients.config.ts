import { defineConfig } from 'vitest/config';
import { conditions } from './vitest.shared.js';

// `pnpm test:generated-clients`: clients generated from the committed openapi.json by
// @hey-api/openapi-ts and orval (fetch and axios) into generated-clients/generated/, each run
// through the same flow against the server. Not part of `pnpm test` (needs the generation first).

export default defineConfig({
  root: import.meta.dirname,
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: 'server-generated-clients',
    include: ['generated-clients/*.client.ts'],
    hookTimeout: 60_000,
  },
});
