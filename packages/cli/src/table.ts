/** Plain-text tables for a terminal: one row per item (scalar fields), or field/value for one object. */
const MAX = 48;

/*
 * Data is text from the API, not from the user at this terminal: control characters (ESC, BEL, C1)
 * and the bidirectional overrides are shown escaped, so that a value cannot clear the screen, set
 * the window title or reorder what is printed. C0 characters as `\x1B`, the others as `\u009B`,
 * `\u202E`: inside JSON text (where JSON.stringify has already escaped C0) that is a valid JSON
 * escape for the same character, so an error body printed as JSON still parses to what was sent.
 */
const CONTROLS = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;
const escapeControl = (c: string) => {
  if (c === '\n' || c === '\t') return c;
  const code = c.charCodeAt(0);
  return code < 0x20
    ? `\\x${code.toString(16).toUpperCase().padStart(2, '0')}`
    : `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
};

/**
 * `text` with every control character but newline and tab, and every bidirectional override,
 * escaped: for anything the API sent that reaches the terminal (table cells, error messages).
 */
export const escapeControls = (text: string): string => text.replace(CONTROLS, escapeControl);

/** Characters as a reader sees them (an emoji with its modifiers, a letter with its accents). */
const graphemes = (text: string) => Array.from(new Intl.Segmenter().segment(text), (s) => s.segment);

/** Columns a character takes in a terminal: 2 for East Asian wide ones and emoji, else 1. */
const WIDE =
  /\p{Extended_Pictographic}|[\u1100-\u115f\u2e80-\u303e\u3041-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]/u;
const widthOf = (grapheme: string) => (WIDE.test(grapheme) ? 2 : 1);
const width = (text: string) => graphemes(text).reduce((sum, g) => sum + widthOf(g), 0);

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  const line = escapeControls(text.replace(/\s+/g, ' '));
  if (width(line) <= MAX) return line;
  let cut = '';
  let used = 0;
  for (const g of graphemes(line)) {
    if (used + widthOf(g) > MAX - 1) break;
    cut += g;
    used += widthOf(g);
  }
  return `${cut}…`;
}

function grid(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => width(r[i] ?? ''))));
  return `${rows
    .map((r) =>
      r
        .map((c, i) => c + ' '.repeat(Math.max(0, (widths[i] ?? 0) - width(c))))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}

export function formatTable(data: unknown): string {
  if (data === null || data === undefined) return '(none)\n';
  if (Array.isArray(data)) {
    if (data.length === 0) return '(no items)\n';
    const objects = data as Record<string, unknown>[];
    // Columns: the fields whose values are scalars (a list's long text and nested objects stay out).
    const columns = Object.keys(objects[0] ?? {}).filter((key) =>
      objects.every((o) => o[key] === null || typeof o[key] !== 'object'),
    );
    return grid([columns.map((c) => c.toUpperCase()), ...objects.map((o) => columns.map((c) => cell(o[c])))]);
  }
  if (typeof data === 'object') return grid(Object.entries(data).map(([key, value]) => [key, cell(value)]));
  return `${cell(data)}\n`;
}
