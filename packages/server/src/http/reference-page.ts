import scalar from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';
import { staticAnswers } from './static-answers.js';

/** Where the reference page is served (`GET /docs` redirects to `/docs/`). */
export const REFERENCE_PAGE_PATH = '/docs';

/**
 * The Content-Security-Policy of every answer under `/docs`: the page may not be framed
 * (`frame-ancestors 'none'`, against clickjacking) and may load and contact nothing but this
 * server (`connect-src 'self'`: "Try it" requests go to this API, never through a proxy).
 * Scalar's page needs its inline bootstrap script and inline styles, `data:`/`blob:` images
 * and fonts, and blob workers.
 */
export const REFERENCE_PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The API reference at `GET /docs`: Scalar's page rendering `GET /openapi.json`. Its script is
 * served by the server itself (`/docs/js/scalar.js`) and the default web fonts are off, so the
 * page needs no network beyond this server. Scalar's hosted-service features are off, so a
 * self-hosted page sends nothing off-host: the agent ("Ask AI"), the "Generate MCP" upload of the
 * document, the developer tools (share, deploy), "Open in client", telemetry; no request proxy
 * is set (`proxyUrl`), so "Try it" calls this server directly.
 */
export async function registerReferencePage(app: FastifyInstance): Promise<void> {
  await app.register(async (docs) => {
    // The page and its script do not change while the server runs: compressed once, then served
    // from memory with an ETag. The script may be kept a day; the page is checked each time.
    const statics = staticAnswers((path) => (path.endsWith('.js') ? 'public, max-age=86400' : 'no-cache'));
    docs.addHook('onRequest', async (request, reply) => {
      reply.header('content-security-policy', REFERENCE_PAGE_CSP);
      reply.header('x-content-type-options', 'nosniff');
      return statics.onRequest(request, reply);
    });
    docs.addHook('onSend', statics.onSend);
    await docs.register(scalar, {
      routePrefix: REFERENCE_PAGE_PATH,
      logLevel: 'warn',
      configuration: {
        url: '/openapi.json',
        pageTitle: 'Creator Marketplace API reference',
        withDefaultFonts: false,
        hideClientButton: true,
        showDeveloperTools: 'never',
        agent: { disabled: true },
        mcp: { disabled: true },
        telemetry: false,
      },
    });
  });
}
