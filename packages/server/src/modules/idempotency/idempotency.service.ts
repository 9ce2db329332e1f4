import { createHash } from 'node:crypto';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_IN_PROGRESS_MESSAGE,
  IDEMPOTENCY_KEY_INVALID_MESSAGE,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_KEY_REUSED_MESSAGE,
  IDEMPOTENCY_KEY_TTL_MS,
  IDEMPOTENT_REPLAYED_HEADER,
} from '@app/schemas';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { newId } from '../../db/ids.js';
import type { Row, Statement } from '../../db/statements.js';
import { badRequest, HttpError, unprocessable } from '../../http/errors.js';

/*
 * `Idempotency-Key` on every public `POST` (decisions.md §6; docs/reliability.md, "Idempotency
 * keys"). The design:
 *
 * - Before the request's work, one statement takes the key: an insert into `idempotency_keys`
 *   whose unique (user, key) index lets exactly one request have it, on every replica, however
 *   many arrive at once. The statement commits on its own, so the claim is visible to every other
 *   request before the work starts.
 * - The request that took the key runs as without one. When its answer is written (`onSend`),
 *   a status below 500 is stored with its `Location`, `ETag` and body; a 5xx gives the key back
 *   (the row is deleted) so that the retry runs the request.
 * - Another request with the key finds the row: another fingerprint is `422`; no stored answer
 *   yet is `409` with `Retry-After: 1`; a stored answer is sent again with
 *   `Idempotent-Replayed: true`, and nothing else is done.
 * - Times are the database's (`now()`), one clock for every replica. A key older than 24 hours
 *   is taken over as if new, and the taking statement also deletes up to 100 other expired keys:
 *   expired keys go without a job of their own. A key still without an answer after
 *   {@link ABANDONED_AFTER_SECONDS} belongs to a process that died mid-request, and is taken over
 *   too (no request runs that long: the handler timeout answers `503` after 10 s).
 */

/** A key taken but not answered for this long was left by a process that stopped mid-request. */
export const ABANDONED_AFTER_SECONDS = 60;
const TTL_SECONDS = IDEMPOTENCY_KEY_TTL_MS / 1000;

const CLAIM: Statement = {
  name: 'idempotency_claim',
  text: `with purged as (
    delete from idempotency_keys where id in (
      select id from idempotency_keys
      where created_at < now() - interval '${TTL_SECONDS} seconds' and not (user_id = $2 and "key" = $3)
      order by created_at limit 100 for update skip locked))
  insert into idempotency_keys (id, user_id, "key", fingerprint, created_at) values ($1, $2, $3, $4, now())
  on conflict (user_id, "key") do update
    set id = excluded.id, fingerprint = excluded.fingerprint, created_at = excluded.created_at,
      status = null, headers = null, body = null
    where idempotency_keys.created_at < now() - interval '${TTL_SECONDS} seconds'
      or (idempotency_keys.status is null
        and idempotency_keys.created_at < now() - interval '${ABANDONED_AFTER_SECONDS} seconds')
  returning id`,
};

const LOOKUP: Statement = {
  name: 'idempotency_lookup',
  text: 'select fingerprint, status, headers, body from idempotency_keys where user_id = $1 and "key" = $2',
};

const FINISH: Statement = {
  name: 'idempotency_finish',
  text: 'update idempotency_keys set status = $2, headers = $3, body = $4 where id = $1',
};

const RELEASE: Statement = {
  name: 'idempotency_release',
  text: 'delete from idempotency_keys where id = $1',
};

/** The answer's headers that are stored and replayed. */
const STORED_HEADERS = ['location', 'etag', 'content-type'] as const;

/** The row each request took, until its answer is stored. */
const claims = new WeakMap<FastifyRequest, string>();

/** The `Idempotency-Key` of a request: undefined when not sent; `400` when not a valid key. */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const value = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(value))
    throw badRequest(IDEMPOTENCY_KEY_INVALID_MESSAGE);
  return value;
}

/** `409` while the first request with the key is still running. */
const inProgress = () =>
  new HttpError(409, { error: IDEMPOTENCY_KEY_IN_PROGRESS_MESSAGE }, { 'retry-after': '1' });

/** JSON with the keys of every object sorted: the same payload gives the same text. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, item]) => `${JSON.stringify(k)}:${canonical(item)}`).join(',')}}`;
}

/**
 * What makes two requests the same: the method, the path with its query, the parsed payload, and
 * the SHA-256 of each uploaded file (a multipart form's boundary and part order do not count).
 */
export function fingerprintOf(request: FastifyRequest): string {
  const files = Object.fromEntries(
    Object.entries(request.uploads ?? {}).map(([field, file]) => [
      field,
      file && createHash('sha256').update(file.data).digest('hex'),
    ]),
  );
  const text = canonical([request.method, request.url, request.body ?? null, files]);
  return createHash('sha256').update(text).digest('hex');
}

/**
 * `preHandler` hook of an idempotent endpoint, once the payload is valid: takes the key, or
 * answers from the stored answer (`422` for another request, `409` while in progress).
 */
export async function claimIdempotencyKey(
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply | undefined> {
  const key = idempotencyKeyOf(request);
  if (key === undefined) return;
  const userId = request.caller.user.id;
  const fingerprint = fingerprintOf(request);
  const statements = await request.statements();
  // A second pass only when the key was given back (a 5xx) between the two statements.
  for (let pass = 0; pass < 2; pass++) {
    const id = newId();
    const taken = await statements.run(CLAIM, [id, userId, key, fingerprint]);
    if (taken.length > 0) {
      claims.set(request, id);
      return;
    }
    const [row] = await statements.run(LOOKUP, [userId, key]);
    if (!row) continue;
    // Another request with the key is running: whatever this one is, it waits for it.
    if (row.status === null) throw inProgress();
    if (row.fingerprint !== fingerprint) throw unprocessable({ base: [IDEMPOTENCY_KEY_REUSED_MESSAGE] });
    return replay(reply, row);
  }
  throw inProgress();
}

/** Answers with the stored answer (an async hook that answers returns the reply). */
function replay(reply: FastifyReply, row: Row): FastifyReply {
  const headers = JSON.parse((row.headers as string | null) ?? '{}') as Record<string, string>;
  reply
    .code(row.status as number)
    .headers(headers)
    .header(IDEMPOTENT_REPLAYED_HEADER, 'true');
  return reply.send((row.body as string | null) ?? undefined);
}

/**
 * `onSend` hook of an idempotent endpoint: stores the answer of the request that took the key
 * (below 500), or gives the key back (5xx). A failure to store is logged; the answer still goes.
 */
export async function storeIdempotentAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  const id = claims.get(request);
  if (id === undefined) return payload;
  claims.delete(request);
  try {
    const statements = await request.statements();
    if (reply.statusCode >= 500) {
      await statements.run(RELEASE, [id]);
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of STORED_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const body =
      typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    await statements.run(FINISH, [id, reply.statusCode, JSON.stringify(headers), body]);
  } catch (error) {
    request.log.warn({ err: error }, 'the Idempotency-Key answer could not be stored');
  }
  return payload;
}

/**
 * The hooks of an endpoint that takes `Idempotency-Key`: the key is checked (`400`) before the
 * body is read, taken once the payload is valid (so the fingerprint is of the validated payload,
 * multipart files included), and the answer stored after the route's own `onSend`.
 */
export const idempotencyHooks = {
  preParsing: async (request: FastifyRequest) => void idempotencyKeyOf(request),
  preHandler: claimIdempotencyKey,
  onSend: storeIdempotentAnswer,
};
