/** The integers a numeric option takes: from `min` to `max`, and `Infinity` where it means no bound. */
export interface IntegerRange {
  min: number;
  /** None by default. */
  max?: number;
  /** `Infinity` is taken too (`toArray`'s `limit`: every item). */
  infinite?: boolean;
}

/**
 * `value` when it is an integer in `range`, checked before anything is sent; else a `RangeError`
 * with `message()`. `NaN` (`Number()` of an unset variable), a fraction, a negative or `Infinity`
 * would otherwise be taken silently (a timeout of 1.5 ms, a walk of every page). The wording is
 * each option's own (the client's options', the lists'), as users and tests see it.
 */
export function checkedInteger(value: number, range: IntegerRange, message: () => string): number {
  const { min, max = Number.POSITIVE_INFINITY, infinite = false } = range;
  if (
    (Number.isInteger(value) && value >= min && value <= max) ||
    (infinite && value === Number.POSITIVE_INFINITY)
  )
    return value;
  throw new RangeError(message());
}
