import type { BodySpec, Endpoint, Role, TestHelperTable } from '@app/schemas';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type * as z from 'zod';
import type { Config } from '../config.js';
import type { Em } from '../db/database.js';
import type { PageWindow, ReadDeclaration, ReadResult } from '../db/reads.js';
import type { UploadedFile, UploadStore } from '../modules/uploads/uploads.js';

/*
 * What a route is, as a module declares it: an endpoint of the table, its handler, the context the
 * handler is given, and what it reads with the caller. The modules build their routes from these
 * (`defineRoutes`); the request pipeline (pipeline/routes.ts) registers and runs them. This file
 * imports no module but the uploads' types, so that the modules sit under the pipeline, never
 * beside it.
 */

/** Who is calling, as established from the token (and the organization in the URL). */
export interface Caller {
  tokenId: string;
  permission: 'read' | 'write';
  user: { id: string; name: string; email: string };
  /** The caller's membership in the organization the URL names, if any. */
  membership: { id: string; role: Role; isOwner: boolean } | null;
}

type BodyOf<E extends Endpoint> =
  E['body'] extends BodySpec<string | null, infer S>
    ? E['body']['required'] extends false
      ? z.output<S> | undefined
      : z.output<S>
    : undefined;

/** What a handler returns: a page of items and the total for lists, the resource otherwise. */
export type ResultOf<E extends Endpoint> =
  E['response'] extends z.ZodArray<infer Item>
    ? { items: z.input<Item>[]; total: number }
    : E['response'] extends z.ZodType
      ? z.input<E['response']>
      : undefined;

export interface Context<E extends Endpoint, C> {
  request: FastifyRequest;
  reply: FastifyReply;
  /** This request's EntityManager (its own identity map). */
  em: Em;
  config: Config;
  caller: C;
  params: z.output<E['params']>;
  query: z.output<E['query']>;
  /** The payload, already unwrapped from its key and validated. */
  body: BodyOf<E>;
  /** Files of a multipart request, by field name. */
  files: Partial<Record<string, UploadedFile>>;
  /** Where logos and banners are stored (one store for the whole app). */
  uploads: UploadStore;
  /** The page asked for (`page`, 1 when absent) as `limit`/`offset` (meaningful on lists). */
  page: PageWindow;
  /** What the route's read selected with the caller (nothing when it declares none). */
  read: ReadResult;
  /**
   * Takes the request's `Idempotency-Key` now, in a handler marked {@link takingKeyItself}; a no-op
   * without a key, or once taken. A key whose answer is stored already ends the handler here: the
   * stored answer is sent (the promise rejects with {@link AnsweredFromKey}, which the pipeline
   * expects).
   */
  takeIdempotencyKey(): Promise<void>;
}

/** Ends a handler whose `Idempotency-Key` was answered from its stored answer (already sent). */
export class AnsweredFromKey extends Error {
  constructor() {
    super('answered from the stored answer of the Idempotency-Key');
  }
}

/**
 * Marks a handler that takes its request's `Idempotency-Key` itself (`takeIdempotencyKey()`),
 * after its slow work (an outbound fetch, a render) and before its first statement. The key's
 * transaction, which holds every write of the request (and on PGlite the whole database), is then
 * not held during that work. Every other handler of an endpoint with a key has it taken before it
 * runs. A key already answered is still answered before the handler starts.
 */
export function takingKeyItself<H extends object>(handler: H): H & { readonly takesKeyItself: true } {
  return Object.assign(handler, { takesKeyItself: true as const });
}

/** Whether a handler is marked {@link takingKeyItself}. */
export const takesKeyItself = (handler: object): boolean => 'takesKeyItself' in handler;

/** A handler; those of 204 and 303 endpoints resolve to nothing in particular. */
export type Handler<E extends Endpoint, C = Caller> = (
  ctx: Context<E, C>,
) => Promise<ResultOf<E> extends undefined ? unknown : ResultOf<E>>;

export type Handlers<G extends Record<string, Endpoint>, C = Caller> = { [K in keyof G]: Handler<G[K], C> };

/** Handlers of the test-helper endpoints: no caller (they are guarded by the sandbox key). */
export type TestHelperHandlers = Handlers<TestHelperTable, null>;

/**
 * What a route reads with the caller lookup (one statement for authentication, tenancy and the
 * resource), declared (db/reads.ts); `by` names one of the endpoint's parameters.
 */
export type RouteRead<E extends Endpoint> = ReadDeclaration<keyof z.output<E['params']> & string>;

export interface Route {
  endpoint: Endpoint;
  name: string;
  handler: Handler<Endpoint, Caller | null>;
  read?: RouteRead<Endpoint>;
}

/**
 * Binds a group of the endpoint table to its handlers (and, for hot reads, the rows each fetches
 * with the caller); TypeScript checks each against its endpoint.
 */
export function defineRoutes<G extends Record<string, Endpoint>, C extends Caller | null = Caller>(
  group: string,
  endpoints: G,
  handlers: Handlers<G, C>,
  reads: { [K in keyof G]?: RouteRead<G[K]> } = {},
): Route[] {
  return Object.entries(endpoints).map(([action, endpoint]) => ({
    endpoint,
    name: `${group}.${action}`,
    handler: handlers[action as keyof G] as unknown as Handler<Endpoint, Caller | null>,
    ...(reads[action as keyof G] && { read: reads[action as keyof G] as unknown as RouteRead<Endpoint> }),
  }));
}
