import scalar from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';

/** Where the reference page is served (`GET /docs` redirects to `/docs/`). */
export const REFERENCE_PAGE_PATH = '/docs';

/**
 * The API reference at `GET /docs`: Scalar's page rendering `GET /openapi.json`. Its script is
 * served by the server itself (`/docs/js/scalar.js`) and the default web fonts are off, so the
 * page needs no network beyond this server.
 */
export async function registerReferencePage(app: FastifyInstance): Promise<void> {
  await app.register(scalar, {
    routePrefix: REFERENCE_PAGE_PATH,
    logLevel: 'warn',
    configuration: {
      url: '/openapi.json',
      pageTitle: 'Creator Marketplace API reference',
      withDefaultFonts: false,
      hideClientButton: true,
      telemetry: false,
    },
  });
}
