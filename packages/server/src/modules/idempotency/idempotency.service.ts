import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_IN_PROGRESS_MESSAGE,
  IDEMPOTENCY_KEY_INVALID_MESSAGE,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_KEY_REUSED_MESSAGE,
  IDEMPOTENCY_KEY_TTL_MS,
  IDEMPOTENT_REPLAYED_HEADER,
} from '@app/schemas';
import type { Transaction } from '@mikro-orm/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Em } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { badRequest, HttpError, unprocessable } from '../../http/errors.js';

/*
 * `Idempotency-Key` on every public `POST` (decisions.md §6; docs/reliability.md, "Idempotency
 * keys"). The key is taken in the same transaction as the request's write, so that the key and
 * the write commit together, or vanish together:
 *
 * - Once the payload is valid, the request opens a transaction on its EntityManager
 *   (`request.em`), and everything the handler writes runs inside it (the modules' own
 *   transactions become savepoints). Its first statement takes a transaction-scoped advisory
 *   lock on a hash of (user, key), `pg_try_advisory_xact_lock`: exactly one request holds it, on
 *   every replica, however many arrive at once. Another request with the key while it is held is
 *   `409` with `Retry-After: 1`.
 * - With the lock held, the stored answer is looked up: another fingerprint is `422`; the same
 *   one is sent again with `Idempotent-Replayed: true`, and nothing else is done.
 * - A handler with slow work before its first statement (a collab's website prefill, two fetches
 *   of up to 3 s; a brief's render, up to 1 s) takes the key itself after that work
 *   (`takingKeyItself`, http/route.ts): an open transaction holds a pool connection, and on
 *   PGlite the whole database, so one user's creates stalled every other request. For it, the
 *   stored answer is first looked for without a lock, so that a retry of an answered request is
 *   answered at once, its page not fetched again.
 * - When the answer is written (`onSend`), a status below 500 is stored with its `Location`,
 *   `ETag` and body in that same transaction, which then commits: the write and its stored answer
 *   are one commit. A 5xx rolls the transaction back (nothing stored, nothing written), so that
 *   the retry runs the request.
 * - A replica killed mid-request holds nothing afterwards: its connection closes, PostgreSQL
 *   rolls its transaction back, and the lock goes with it. The retry that follows runs as the
 *   first request (no `409` while a dead process's claim ages, no row to take over), and a write
 *   that was not committed cannot be duplicated by it. A failed commit fails the request (the
 *   write did not happen either).
 * - The database holds neither the key nor a readable answer: the row's `key` is the key's
 *   SHA-256, and the answer's body (an access token's secret, say) is sealed with AES-256-GCM
 *   under a key derived from the client's key and the user (HKDF): a dump or a backup of the
 *   table gives no live token, and only a request with the key can open its answer.
 * - Times are the database's (`now()`), one clock for every replica. A key older than 24 hours
 *   is forgotten, and each stored answer also deletes up to 100 other expired keys: expired keys
 *   go without a job of their own.
 * - A user keeps at most its newest `keysPerUser` keys (`MARKETPLACE_IDEMPOTENCY_KEYS_PER_USER`,
 *   1 000): the statement that stores one also deletes that user's keys past the newest, read in
 *   order from the index on (user, created_at), so one user cannot fill the table with a row per
 *   `POST` for a day. A retry with a key older than the user's newest N runs again.
 *
 * On PGlite (one session in one process) a transaction holds the instance, so a second request
 * with the key waits for the first and gets its replay. Behind a pooler in transaction mode the
 * lock is safe: it lives and dies with the transaction (docs/deploy.md, "Behind a pooler").
 */

const TTL_SECONDS = IDEMPOTENCY_KEY_TTL_MS / 1000;

/** The lock of (user, key): 64 bits of hash, apart from the two-key locks of the row limits. */
const LOCK = `select pg_try_advisory_xact_lock(hashtextextended('idempotency:' || ? || ':' || ?, 0)) as taken`;

/** The live stored answer of a key (rows without a status are left by an older version). */
const LOOKUP = `select fingerprint, status, headers, body from idempotency_keys
  where user_id = ? and "key" = ? and status is not null
    and created_at >= now() - interval '${TTL_SECONDS} seconds'`;

/**
 * Stores the answer (replacing an expired or unanswered row of the key), purges expired keys, and
 * forgets the user's keys past its newest ones (the offset: the number kept less the one stored).
 * The surplus is found without locks (a `for update` under an `offset` would lock every row it
 * skips: the user's newest N, on every store), then only its rows are locked; rows another
 * transaction is deleting are skipped, never waited for.
 */
const STORE = `with purged as (
    delete from idempotency_keys where id in (
      select id from idempotency_keys
      where created_at < now() - interval '${TTL_SECONDS} seconds' and not (user_id = ? and "key" = ?)
      order by created_at limit 100 for update skip locked)),
  surplus as (
    delete from idempotency_keys where id in (
      select id from idempotency_keys where id in (
        select id from idempotency_keys
        where user_id = ? and "key" <> ?
        order by created_at desc offset ? limit 100)
      for update skip locked))
  insert into idempotency_keys (id, user_id, "key", fingerprint, created_at, status, headers, body)
    values (?, ?, ?, ?, now(), ?, ?, ?)
  on conflict (user_id, "key") do update
    set id = excluded.id, fingerprint = excluded.fingerprint, created_at = excluded.created_at,
      status = excluded.status, headers = excluded.headers, body = excluded.body`;

/** The row's `key`: the key's SHA-256 (hex), so that the database does not hold the key. */
export const storedKeyOf = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** A sealed body's prefix; a body without it was stored, readable, by an older version. */
const SEALED = 'sealed1:';

/** The AES-256 key of the answers stored under (user, key): only the client's key opens them. */
const sealingKey = (userId: string, key: string): Buffer =>
  Buffer.from(hkdfSync('sha256', key, userId, 'marketplace idempotency answer', 32));

/** An answer's body as the row keeps it: `sealed1:` and base64 of the IV, the tag and the text. */
export function sealBody(body: string, userId: string, key: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(userId, key), iv);
  const text = Buffer.concat([cipher.update(body, 'utf8'), cipher.final()]);
  return SEALED + Buffer.concat([iv, cipher.getAuthTag(), text]).toString('base64');
}

/** The body a row keeps, opened with the request's key (a row of an older version is as sent). */
export function openBody(stored: string, userId: string, key: string): string {
  if (!stored.startsWith(SEALED)) return stored;
  const bytes = Buffer.from(stored.slice(SEALED.length), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(userId, key), bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}

/** The answer's headers that are stored and replayed. */
const STORED_HEADERS = ['location', 'etag', 'content-type'] as const;

/** A request's key, checked and fingerprinted, until it is taken (`takeIdempotencyKey`). */
interface NotedKey {
  userId: string;
  key: string;
  /** The row's `key` (`storedKeyOf`), hashed once for the lookup and the store. */
  storedKey: string;
  fingerprint: string;
}

/** A key a request holds: its transaction (the write's), until the answer is stored. */
interface Claim extends NotedKey {
  em: Em;
  transaction: Transaction;
}

type Row = Record<string, unknown>;

const claims = new WeakMap<FastifyRequest, Claim>();

/**
 * Ends a claim's transaction. The EntityManager keeps the ended transaction as its context, so a
 * handler still running after its answer (a `503` of the handler timeout) fails its next
 * statement instead of writing outside of it.
 */
async function end(claim: Claim, outcome: 'commit' | 'rollback'): Promise<void> {
  const connection = claim.em.getConnection('write');
  if (outcome === 'commit') await connection.commit(claim.transaction);
  else await connection.rollback(claim.transaction);
}

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

const noted = new WeakMap<FastifyRequest, NotedKey>();

/**
 * `preHandler` hook of an idempotent endpoint, once the payload is valid: opens the request's
 * transaction and takes the key in it, or answers from the stored answer (`422` for another
 * request, `409` while in progress). With `late` (a handler that takes the key itself, after its
 * slow work: `takingKeyItself`), only a stored answer is looked for now, without a lock, and sent;
 * otherwise the key waits for the handler's `takeIdempotencyKey`.
 */
export async function claimIdempotencyKey(
  request: FastifyRequest,
  reply: FastifyReply,
  late = false,
): Promise<FastifyReply | undefined> {
  const key = idempotencyKeyOf(request);
  if (key === undefined) return;
  const note: NotedKey = {
    userId: request.caller.user.id,
    key,
    storedKey: storedKeyOf(key),
    fingerprint: fingerprintOf(request),
  };
  if (!late) return take(request, reply, note);
  // A retry of a request that was answered is answered at once, its slow work not done again.
  const [row] = await request.em.execute<Row[]>(LOOKUP, [note.userId, note.storedKey]);
  if (row) return answerFrom(reply, row, note);
  noted.set(request, note);
}

/**
 * Takes the key noted by `claimIdempotencyKey` for a handler that takes it itself: undefined once
 * taken (or when there is none), the reply when the stored answer was sent instead.
 */
export async function takeIdempotencyKey(
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply | undefined> {
  const note = noted.get(request);
  if (note === undefined) return;
  noted.delete(request);
  return take(request, reply, note);
}

/** Opens the request's transaction and takes the key in it, or answers as `claimIdempotencyKey` says. */
async function take(
  request: FastifyRequest,
  reply: FastifyReply,
  note: NotedKey,
): Promise<FastifyReply | undefined> {
  const em = request.em;
  const transaction = await em.getConnection('write').begin();
  em.setTransactionContext(transaction);
  const claim: Claim = { em, transaction, ...note };
  let row: Row | undefined;
  try {
    const [lock] = await em.execute<Row[]>(LOCK, [note.userId, note.key]);
    // Another request with the key is running, on this replica or another.
    if (lock?.taken !== true) throw inProgress();
    [row] = await em.execute<Row[]>(LOOKUP, [note.userId, note.storedKey]);
  } catch (error) {
    await end(claim, 'rollback');
    throw error;
  }
  if (!row) {
    claims.set(request, claim);
    return;
  }
  await end(claim, 'rollback');
  return answerFrom(reply, row, note);
}

/** The stored answer of the same request, or `422` for another request with the key. */
function answerFrom(reply: FastifyReply, row: Row, note: NotedKey): FastifyReply {
  if (row.fingerprint !== note.fingerprint) throw unprocessable({ base: [IDEMPOTENCY_KEY_REUSED_MESSAGE] });
  return replay(reply, row, note.userId, note.key);
}

/** Answers with the stored answer (an async hook that answers returns the reply). */
function replay(reply: FastifyReply, row: Row, userId: string, key: string): FastifyReply {
  const headers = JSON.parse((row.headers as string | null) ?? '{}') as Record<string, string>;
  reply.code(Number(row.status)).headers(headers).header(IDEMPOTENT_REPLAYED_HEADER, 'true');
  const body = row.body as string | null;
  return reply.send(body === null ? undefined : openBody(body, userId, key));
}

/**
 * `onSend` hook of an idempotent endpoint: stores the answer of the request that took the key
 * (below 500) in the request's transaction and commits it, write and answer together; a 5xx
 * rolls it all back. A failed commit fails the request: its write did not happen either.
 */
export async function storeIdempotentAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  keysPerUser: number,
): Promise<unknown> {
  const claim = claims.get(request);
  if (claim === undefined) return payload;
  claims.delete(request);
  if (reply.statusCode >= 500) {
    await end(claim, 'rollback').catch((error: unknown) =>
      request.log.warn({ err: error }, 'the Idempotency-Key transaction could not be rolled back'),
    );
    return payload;
  }
  const headers: Record<string, string> = {};
  for (const name of STORED_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  const body =
    typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
  const { em, userId, key, storedKey, fingerprint } = claim;
  try {
    await em.execute(STORE, [
      userId,
      storedKey,
      userId,
      storedKey,
      keysPerUser - 1,
      newId(),
      userId,
      storedKey,
      fingerprint,
      reply.statusCode,
      JSON.stringify(headers),
      body === null ? null : sealBody(body, userId, key),
    ]);
    await end(claim, 'commit');
  } catch (error) {
    await end(claim, 'rollback').catch(() => {});
    throw error;
  }
  return payload;
}

/**
 * The hooks of an endpoint that takes `Idempotency-Key`: the key is checked (`400`) before the
 * body is read, taken once the payload is valid (so the fingerprint is of the validated payload,
 * multipart files included), and the answer stored after the route's own `onSend`, with the
 * user's keys past the newest `keysPerUser` forgotten.
 */
export function idempotencyHooks(keysPerUser: number, late: boolean) {
  return {
    preParsing: async (request: FastifyRequest) => void idempotencyKeyOf(request),
    preHandler: (request: FastifyRequest, reply: FastifyReply) => claimIdempotencyKey(request, reply, late),
    onSend: (request: FastifyRequest, reply: FastifyReply, payload: unknown) =>
      storeIdempotentAnswer(request, reply, payload, keysPerUser),
  };
}
