import type { FieldErrors } from '@app/schemas';
import type { Em } from '../db/database.js';
import type { Statements } from '../db/statements.js';
import type { UnavailableCause } from '../http/errors.js';
import type { Caller } from '../http/route.js';
import type { UploadedFile } from '../modules/uploads/uploads.js';
import type { RouteInput } from './routes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** This request's EntityManager fork (forked on first use). */
    em: Em;
    /** The prepared-statement runner of the database (db/statements.ts). */
    statements: () => Promise<Statements>;
    /** The route's parameters and query, checked once in `onRequest` (pipeline/routes.ts). */
    routeInput: RouteInput | undefined;
    /** Set by authentication on API routes. */
    caller: Caller;
    /** Files of a multipart request, by field. */
    uploads: Partial<Record<string, UploadedFile>> | undefined;
    /** A multipart request's file fields refused while reading it (too large, text for a file). */
    uploadErrors: FieldErrors | undefined;
    /** Why this request was answered `503`, when it was (see `sendHttpError`). */
    unavailableCause: UnavailableCause | undefined;
  }
  interface FastifyContextConfig {
    /** Wrapper key of the route's request body, for the `errors` map. */
    bodyKey?: string | null;
    /** The endpoint declares a bodiless 404 (`emptyNotFound` in the table). */
    emptyNotFound?: boolean;
  }
}
