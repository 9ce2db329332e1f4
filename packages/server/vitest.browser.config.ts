import { defineConfig } from 'vitest/config';
import { conditions } from './vitest.shared.js';

// The reference page in Debian's Chromium (`pnpm test:browser`; CI installs `chromium` first).
// Not part of `pnpm test`: a fresh machine with Node and npm only has no browser.

export default defineConfig({
  root: import.meta.dirname,
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: 'server-browser',
    include: ['test/browser/**/*.browser.ts'],
    hookTimeout: 60_000,
    testTimeout: 60_000,
  },
});
