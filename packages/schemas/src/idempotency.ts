/**
 * `Idempotency-Key` (decisions.md §6): every public `POST` accepts one. The same key with the same
 * request answers the stored answer again (with {@link IDEMPOTENT_REPLAYED_HEADER}) and does
 * nothing again; keys are scoped to the token's user and kept 24 hours.
 */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** Sent, as `true`, with an answer replayed from a stored one. */
export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';

/** A valid key: 1 to 255 printable ASCII characters (space to `~`). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** How long a key is kept, in milliseconds (24 hours). */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/** `400 {"error"}` of a key that is empty, too long or not printable ASCII. */
export const IDEMPOTENCY_KEY_INVALID_MESSAGE = 'Idempotency-Key must be 1 to 255 printable ASCII characters';

/** `409 {"error"}` (with `Retry-After: 1`) while the first request with the key is running. */
export const IDEMPOTENCY_KEY_IN_PROGRESS_MESSAGE = 'A request with this Idempotency-Key is in progress';

/** `422 {"errors": {"base": [...]}}` of a key sent again with another method, path or payload. */
export const IDEMPOTENCY_KEY_REUSED_MESSAGE = 'Idempotency-Key was used with another request';
