import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  PAGINATION_HEADERS,
  REQUEST_ID_HEADER,
} from '@app/schemas';
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** Response headers a browser script may read besides the CORS-safelisted ones. */
export const EXPOSED_HEADERS = [
  ...Object.values(PAGINATION_HEADERS),
  'ETag',
  'X-Request-Id',
  'Retry-After',
  'Location',
  IDEMPOTENT_REPLAYED_HEADER,
] as const;

/**
 * Request headers a browser script may send: the token, JSON bodies, revalidation, its request id,
 * and the Idempotency-Key the SDK puts on every POST.
 */
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'If-None-Match',
  REQUEST_ID_HEADER,
  IDEMPOTENCY_KEY_HEADER,
];

/**
 * CORS for browser integrations, off unless origins are configured (`MARKETPLACE_CORS_ORIGINS`):
 * a listed origin (or any, with `*`) may call the API with its Bearer token. No cookies are used,
 * so credentials are never allowed. A preflight (`OPTIONS` with `Access-Control-Request-Method`)
 * is answered here, before any route's token check: it carries no token. Registered before the
 * other plugins' hooks, so that every answer (a 401, a 503 under load) can be read by the page.
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  await app.register(cors, {
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: [...EXPOSED_HEADERS],
    credentials: false,
    maxAge: 7_200,
    strictPreflight: false,
  });
}
