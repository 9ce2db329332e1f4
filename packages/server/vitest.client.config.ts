import { defineConfig } from 'vitest/config';
import { conditions } from './vitest.shared.js';

// `pnpm test:client`: the openapi-typescript + openapi-fetch client of contract-client/, after
// generating its types from the committed openapi.json. Not part of `pnpm test` (needs the
// generation step first).

export default defineConfig({
  root: import.meta.dirname,
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: 'server-openapi-client',
    include: ['contract-client/**/*.client.ts'],
    hookTimeout: 60_000,
  },
});
