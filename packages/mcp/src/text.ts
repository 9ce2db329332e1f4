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

/**
 * Characters that would break a line of a question or hide what it says: controls (a newline
 * among them), format characters (a right-to-left override, zero-width ones), line and paragraph
 * separators, surrogates without their pair, private-use and unassigned ones.
 */
const UNSHOWN = /[\p{C}\p{Zl}\p{Zp}]/u;

/** The escapes of the characters that have a short one. */
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One character of a quoted text: as it is, or escaped (`\n`, `\u202e`). */
function escaped(char: string): string {
  if (char === '"' || char === '\\') return `\\${char}`;
  if (!UNSHOWN.test(char)) return char;
  const code = char.codePointAt(0) as number;
  return (
    SHORT_ESCAPES[char] ??
    (code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`)
  );
}

/**
 * Text someone else wrote (a model's argument, a name read from the API), as a question to the
 * user shows it: between quotes, on one line (every character that could end the line, close the
 * quotes or hide text is escaped), and cut short after `max` characters as shown, its length said
 * outside the quotes. So it cannot pass for the question's own words, nor push them out of sight.
 */
export function quoted(value: string, max = SHOWN_CHARACTERS): string {
  let shown = '';
  for (const char of value) {
    if (shown.length >= max) return `"${shown}…" (${value.length} characters)`;
    shown += escaped(char);
  }
  return `"${shown}"`;
}
