/**
 * Numbers and booleans given as text by the tools built on the SDK: the CLI's flags (a shell
 * passes only text) and the MCP server's arguments (models often quote them). One rule for both,
 * stricter than `Number()`: text is a number only when JSON would write that number, so `0x1F4`,
 * ` 500`, `+500`, `Infinity` and `""` are not 500, 0 or Infinity, and stay text for the field's
 * check to refuse. (A URL's `page` is stricter still, decimal digits: `PageQuery`.)
 */

/** A number as JSON writes it: optional minus, no leading zeros, optional fraction and exponent. */
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/**
 * The number `text` is, when it is exactly a finite JSON number (`"500"`, `"-2.5"`, `"1e3"`);
 * undefined otherwise (`"1e999"`, which is no finite number, included). Whether it is an integer
 * is the field's check.
 */
export function numberFromText(text: string): number | undefined {
  if (!JSON_NUMBER.test(text)) return undefined;
  const number = Number(text);
  return Number.isFinite(number) ? number : undefined;
}

/** `true` or `false` when `text` is exactly that word; undefined otherwise (`"True"`, `"1"`, `"yes"`). */
export const booleanFromText = (text: string): boolean | undefined =>
  text === 'true' ? true : text === 'false' ? false : undefined;

/**
 * Whether a field's values (a JSON Schema's `enum`) are exactly the wire's `"1"` and `"0"`: a flag
 * such as `purge_logo`, which the spec makes a string.
 */
export const isOneOrZeroEnum = (values: unknown): boolean =>
  Array.isArray(values) && values.length === 2 && values.includes('0') && values.includes('1');

/**
 * A `"1"`/`"0"` flag given as a boolean is (`purge_logo: true`): `true` or `"true"` is `"1"`,
 * `false` or `"false"` is `"0"`, so that the flag takes what every boolean field takes (the CLI's
 * `--purge-logo true`, a model's `"purge_logo": true`); undefined for anything else (`"1"` and `"0"`
 * are the flag's own values; `1`, `"yes"`, `"True"` are refused by its check).
 */
export function oneOrZeroFromBoolean(value: unknown): '1' | '0' | undefined {
  const boolean = typeof value === 'string' ? booleanFromText(value) : value;
  return boolean === true ? '1' : boolean === false ? '0' : undefined;
}
