/**
 * What a header's value may hold (RFC 9110, 5.5): visible ASCII, spaces, tabs and Latin-1 (Node's
 * `fetch` sends those, and refuses control characters and anything above U+00FF).
 */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The whitespace `fetch` trims from around a header's value before checking it. */
export const HTTP_WHITESPACE_AROUND = /^[\t\n\r ]+|[\t\n\r ]+$/g;
