/** What a database driver's errors say, read along their `cause` chain. */

/** What an error of `pg` (or PGlite) may say: its SQLSTATE, its text, the routine that raised it. */
export interface DriverErrorFields {
  code?: unknown;
  message?: unknown;
  /** PostgreSQL's `R` field: the server function that raised the error (PostgreSQL always names one). */
  routine?: unknown;
}

/** An error and the errors it wraps (`cause`), outermost first, at most `depth` of them. */
export function* causeChain(error: unknown, depth = 5): Generator<DriverErrorFields> {
  for (let e = error, seen = 0; e && seen < depth; e = (e as { cause?: unknown }).cause, seen++)
    yield e as DriverErrorFields;
}

/**
 * PostgreSQL's "prepared statement … does not exist" (26000) and "… already exists" (42P05): what
 * the server's named statements meet behind a pooler in transaction mode that it was not told of.
 */
const PREPARED_STATEMENT_CODES = new Set(['26000', '42P05']);

/** Whether a statement failed because a pooler gave it a server connection that lacks its preparation. */
export function lostPreparedStatement(error: unknown): boolean {
  for (const { code } of causeChain(error, 3))
    if (typeof code === 'string' && PREPARED_STATEMENT_CODES.has(code)) return true;
  return false;
}

/** What to do about {@link lostPreparedStatement}: the hint of the lines that report one. */
export const POOLER_HINT =
  'a pooler in transaction mode (PgBouncer, a hosted pooler) between the server and PostgreSQL? Set MARKETPLACE_DATABASE_POOLER=transaction';
