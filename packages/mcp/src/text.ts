/**
 * What an error repeats of the caller's own values. A result goes whole into the model's context:
 * a 2 MB `logo` echoed in `errors` and again in `hint` was a 4 MB answer.
 */

/** The most characters of a caller's value (a path, an argument name) an error repeats. */
export const SHOWN_CHARACTERS = 100;

/** `value` as an error repeats it: whole when short, else its start, an ellipsis and its length. */
export function clip(value: string, max = SHOWN_CHARACTERS): string {
  return value.length <= max ? value : `${value.slice(0, max)}… (${value.length} characters)`;
}
