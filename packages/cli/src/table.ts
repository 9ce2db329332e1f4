/**
 * Plain-text tables for a terminal: one row per item (scalar fields), or field/value for one object.
 * Fitted to a width: every row is printed, cells are cut (widest column first), never a row.
 */
import type { Style } from './output.js';

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

/** East Asian wide and fullwidth characters (CJK, Hangul, fullwidth forms): 2 columns. */
const EAST_ASIAN_WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]/u;
/**
 * An emoji drawn as one (2 columns): one whose default is the emoji presentation (😀, a flag's
 * pair of regional indicators, a family joined by ZWJ) unless U+FE0E asks for text, or any emoji
 * followed by U+FE0F (`❤️`, a keycap `1️⃣`). Tested on the cluster's start, what a terminal draws.
 */
const EMOJI = /^(?:\p{Emoji_Presentation}(?!\uFE0E)|\p{Emoji}\uFE0F)/u;
/**
 * Characters drawn in no column: combining marks, format characters (U+200B zero-width space,
 * U+2060 word joiner, U+00AD soft hyphen, U+FEFF, ZWJ) and the other default-ignorable ones.
 */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\p{Default_Ignorable_Code_Point}]+$/u;
/**
 * Columns a character (a grapheme cluster) takes in a terminal: 0 for one drawn in none (a
 * zero-width space on its own; an accent is part of its letter's cluster), 2 for an emoji and an
 * East Asian wide character, else 1, as `wcwidth` counts them.
 */
const widthOf = (grapheme: string) =>
  ZERO_WIDTH.test(grapheme) ? 0 : EMOJI.test(grapheme) || EAST_ASIAN_WIDE.test(grapheme) ? 2 : 1;
export const width = (text: string) => graphemes(text).reduce((sum, g) => sum + widthOf(g), 0);

/** A value as one line of text, control characters escaped; a list of values joined (`NO, SE`). */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = isValues(value)
    ? value.join(', ')
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);
  return escapeControls(text.replace(/\s+/g, ' '));
}

/** Null, or a string, number or boolean. */
const isScalar = (value: unknown) => value === null || value === undefined || typeof value !== 'object';
/** A list of scalars (`countries`), shown as one cell. */
const isValues = (value: unknown): value is unknown[] => Array.isArray(value) && value.every(isScalar);
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A column of a list: its name, and how a row's cell is read. */
interface ListColumn {
  name: string;
  value: (item: Record<string, unknown>) => unknown;
}

/**
 * The keys of any of `objects`, in the order they first appear: a field that only some items have
 * (an organization's `logo_url`, present once a logo is uploaded) is a column too, after the
 * first item's fields, as JSON puts it.
 */
const keysOf = (objects: readonly Record<string, unknown>[]): string[] => [
  ...new Set(objects.flatMap((object) => Object.keys(object))),
];

/**
 * The columns of a list, in the fields' order: each field whose values are scalars or lists of
 * scalars, and for a nested object (a member's `user`) each of its fields that are, as
 * `user.name`. What is nested deeper stays out (`--output json` shows it).
 */
function columnsOf(items: Record<string, unknown>[]): ListColumn[] {
  const flat = (value: unknown) => isScalar(value) || isValues(value);
  const columns: ListColumn[] = [];
  for (const key of keysOf(items)) {
    if (items.every((item) => flat(item[key]))) columns.push({ name: key, value: (item) => item[key] });
    else if (
      items.every((item) => item[key] === null || item[key] === undefined || isPlainObject(item[key]))
    ) {
      const inner = items.map((item) => item[key]).filter(isPlainObject);
      for (const sub of keysOf(inner)) {
        const read = (item: Record<string, unknown>) =>
          (item[key] as Record<string, unknown> | null | undefined)?.[sub];
        if (items.every((item) => flat(read(item)))) columns.push({ name: `${key}.${sub}`, value: read });
      }
    }
  }
  return columns;
}

/** `text` cut to `columns` (with `…`), never inside a character; as it is when it fits. */
function cut(text: string, columns: number): string {
  if (width(text) <= columns) return text;
  if (columns <= 0) return '';
  let kept = '';
  let used = 0;
  for (const g of graphemes(text)) {
    if (used + widthOf(g) > columns - 1) break;
    kept += g;
    used += widthOf(g);
  }
  return `${kept}…`;
}

/** Space between two columns. */
const GAP = 2;
/** A column that must be cut is cut to no less than this (or its own width, when narrower). */
const MIN = 8;
/** Room a long column (a name) wants before a less important column is shown beside it. */
const WANT = 60;

interface Column {
  /** Its widest cell (the header's included). */
  natural: number;
  /** Ids are never cut: a cut id cannot be copied into the next command. */
  keep: boolean;
  /** Lower is more important: ids, then the fields in order, then timestamps, then links. */
  rank: number;
}

const sum = (widths: number[]) => widths.reduce((a, b) => a + b, 0) + GAP * Math.max(0, widths.length - 1);

/**
 * The width of each column so that a row fits in `total`, undefined for a column left out. Every
 * column fits whole: all whole. Otherwise the columns are taken most important first while each
 * long one can still have WANT (an id its whole width), the rest are left out; what is taken is
 * whole when it fits, else the widest columns are cut first, to a common width (never below MIN).
 */
function fit(columns: Column[], total: number | undefined, drop: boolean): (number | undefined)[] {
  const natural = columns.map((c) => c.natural);
  if (total === undefined || sum(natural) <= total) return natural;
  const want = (c: Column) => (c.keep ? c.natural : Math.min(c.natural, WANT));
  const order = columns.map((c, i) => ({ c, i })).sort((a, b) => a.c.rank - b.c.rank || a.i - b.i);
  const taken = new Set<number>();
  for (const { c, i } of order) {
    const widths = [...taken].map((j) => want(columns[j] as Column));
    if (taken.size >= 2 && sum([...widths, want(c)]) > total) break;
    taken.add(i);
  }
  // A list's column that cannot have its least width beside the ids (a narrow terminal) is left
  // out, the least important first, rather than shown as `…`; the ids stay, whole, even when they
  // alone are wider than the terminal (it wraps them).
  const floor = (c: Column) => (c.keep ? c.natural : Math.min(c.natural, MIN));
  for (const { c, i } of [...order].reverse()) {
    if (!drop || sum([...taken].map((j) => floor(columns[j] as Column))) <= total) break;
    if (!c.keep) taken.delete(i);
  }
  const these = columns.map((c, i) => (taken.has(i) ? c : undefined));
  const shown = these.filter((c): c is Column => c !== undefined);
  if (sum(shown.map((c) => c.natural)) <= total) return these.map((c) => c?.natural);
  // The largest common cap that fits, then what is left over, one column each, left to right.
  const at = (cap: number) => shown.map((c) => Math.max(floor(c), Math.min(c.natural, cap)));
  let cap = Math.max(...shown.map((c) => c.natural));
  while (cap > 0 && sum(at(cap)) > total) cap--;
  const widths = at(cap);
  let spare = total - sum(widths);
  for (let k = 0; k < widths.length && spare > 0; k++) {
    if ((widths[k] as number) < (shown[k] as Column).natural) {
      widths[k] = (widths[k] as number) + 1;
      spare--;
    }
  }
  let k = 0;
  return these.map((c) => (c ? widths[k++] : undefined));
}

export interface Layout {
  /** The terminal's width; undefined: no limit. */
  width?: number | undefined;
  style: Style;
}

const STATES: Record<string, keyof Style> = {
  active: 'green',
  published: 'green',
  verified: 'green',
  paused: 'yellow',
  submitted_for_review: 'yellow',
  pending: 'yellow',
  failed: 'red',
  draft: 'dim',
  finished: 'dim',
};
/** The status of a collab, campaign or social account, in its colour. */
const isStatus = (field: string) => field === 'state' || field === 'status';
const statusStyle = (style: Style, value: string) => {
  const colour = STATES[value];
  return colour ? style[colour] : String;
};

/** A grid's columns as fitted to its rows: each one's width (undefined: left out), and how lines are made. */
interface Fitted {
  widths: (number | undefined)[];
  /** Columns never cut (a list's ids, an object's field names): printed whole. */
  keep: boolean[];
  /** Columns narrower than their widest cell: the width is tight, a wider cell is cut to it. */
  tight: boolean[];
  /** The width fitted to; undefined: none (every cell whole). */
  total: number | undefined;
  /** A list: columns without room are left out, and no line is cut at its end (ids stay whole). */
  list: boolean;
}

/** The columns of `rows` (a header among them) fitted to `total`: what `renderGrid` prints them in. */
function fitGrid(
  rows: string[][],
  keep: (i: number) => boolean,
  rank: (i: number) => number,
  total: number | undefined,
  list: boolean,
): Fitted {
  const count = (rows[0] ?? []).length;
  const columns = Array.from({ length: count }, (_, i) => ({
    natural: Math.max(...rows.map((r) => width(r[i] ?? ''))),
    keep: keep(i),
    rank: rank(i),
  }));
  const widths = fit(columns, total, list);
  const tight = columns.map((c, i) => (widths[i] ?? 0) < c.natural);
  return { widths, keep: columns.map((c) => c.keep), tight, total, list };
}

/**
 * `rows` as lines (each ending in a newline) in the columns of `fitted`, each cell in `colour`. A
 * cell wider than its column is cut to it when the column was cut to fit (`tight`), as in any
 * table. A row after those the columns were fitted to (a later page of a walk) may have a cell
 * wider than its column was sized for: it takes the room the line has left under the width, then
 * is cut; the cells after it move right on that line. An id (never cut) and any cell when there is
 * no width (every cell whole) are printed whole.
 */
function renderGrid(
  rows: string[][],
  { widths, keep, tight, total, list }: Fitted,
  colour: (text: string, row: string[], i: number) => string,
): string {
  const shown = widths.flatMap((w) => (w === undefined ? [] : [w]));
  const used = shown.reduce((sum, w) => sum + w, 0) + GAP * Math.max(0, shown.length - 1);
  const line = (r: string[]) => {
    // The room the line has beyond its columns: a cell wider than its column takes it, in
    // order, before it is cut (an id takes it first, whole in any case).
    let room = total === undefined ? Number.POSITIVE_INFINITY : total - used;
    for (const [i, w] of widths.entries())
      if (w !== undefined && keep[i]) room -= Math.max(0, width(r[i] ?? '') - w);
    const cells = widths.flatMap((w, i) => {
      if (w === undefined) return [];
      const text = r[i] ?? '';
      let c = text;
      if (!keep[i] && width(text) > w) {
        const grown = tight[i] ? w : w + Math.max(0, Math.min(room, width(text) - w));
        c = cut(text, grown);
        room -= grown - w;
      }
      return [{ c, painted: colour(c, r, i), pad: ' '.repeat(Math.max(0, w - width(c))) }];
    });
    const plainLine = cells
      .map(({ c, pad }) => c + pad)
      .join(' '.repeat(GAP))
      .trimEnd();
    // An object's line too wide for the terminal even with both columns at their least (a very
    // narrow terminal) is cut at its end, its colour then left out; a list's is wider only by its
    // ids, which are never cut.
    if (!list && total !== undefined && width(plainLine) > total) return cut(plainLine, total);
    return cells
      .map(({ painted, pad }) => painted + pad)
      .join(' '.repeat(GAP))
      .trimEnd();
  };
  return rows.map((r) => `${line(r)}\n`).join('');
}

/** Words of `text` on lines no wider than `total` (a notice under a table), each in `paint`. */
export function wrap(
  text: string,
  total: number | undefined,
  paint: (line: string) => string = String,
): string {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(' ')) {
    const next = current === '' ? word : `${current} ${word}`;
    if (total === undefined || width(next) <= total || current === '') current = next;
    else {
      lines.push(current);
      current = word;
    }
  }
  lines.push(current);
  return lines.map((l) => `${paint(total === undefined ? l : cut(l, total))}\n`).join('');
}

const isId = (name: string) => /(^|\.)id$|_id$/.test(name);
/** Ids first; timestamps and links (long, and the least read in a list) last. */
const rankOf = (name: string) => (isId(name) ? 0 : /_at$/.test(name) ? 2 : /(^|_)url$/.test(name) ? 3 : 1);

/**
 * A list's table as fitted to its first rows: its columns (those without room too) and their
 * widths. `listRows` prints rows in it, the first ones and any after them: a walk printed page by
 * page (`--all`) is fitted to its first page and keeps no row.
 */
export interface ListTable {
  readonly columns: readonly ListColumn[];
  readonly fitted: Fitted;
  readonly layout: Layout;
  /** The fields the first rows have (`name`, `user.name`): another field of a later row is no column. */
  readonly seen: ReadonlySet<string>;
}

/** The fields of `items` and of the objects in them (`user`, `user.name`), nested or not. */
const pathsOf = (items: readonly Record<string, unknown>[]) =>
  new Set(
    items.flatMap((item) =>
      Object.entries(item).flatMap(([key, value]) => [
        key,
        ...(isPlainObject(value) ? Object.keys(value).map((sub) => `${key}.${sub}`) : []),
      ]),
    ),
  );

const cellsOf = (item: Record<string, unknown>, columns: readonly ListColumn[]) =>
  columns.map((c) => cell(c.value(item)));

/** The table of a list whose first rows are `items` (not empty), fitted to `layout.width`. */
export function listTable(items: Record<string, unknown>[], layout: Layout): ListTable {
  const columns = columnsOf(items);
  const names = columns.map((c) => c.name);
  const fitted = fitGrid(
    [names.map((c) => c.toUpperCase()), ...items.map((item) => cellsOf(item, columns))],
    (i) => isId(names[i] ?? ''),
    (i) => rankOf(names[i] ?? ''),
    layout.width,
    true,
  );
  return { columns, fitted, layout, seen: pathsOf(items) };
}

/** `items` as rows of `table` (after its header, in bold, with `header`); a status in colour. */
export function listRows(
  items: readonly Record<string, unknown>[],
  table: ListTable,
  header = false,
): string {
  const { columns, fitted, layout } = table;
  const names = columns.map((c) => c.name);
  const head = header
    ? renderGrid([names.map((c) => c.toUpperCase())], fitted, (c) => layout.style.bold(c))
    : '';
  return (
    head +
    renderGrid(
      items.map((item) => cellsOf(item, columns)),
      fitted,
      (c, row, i) => (isStatus(names[i] ?? '') ? statusStyle(layout.style, row[i] ?? '')(c) : c),
    )
  );
}

/** The fields of `items` that are no column of `table`: first seen after its first rows. */
export const laterFields = (items: Record<string, unknown>[], table: ListTable): string[] =>
  columnsOf(items)
    .map((c) => c.name)
    .filter((name) => !table.seen.has(name));

/**
 * The line under a list's table naming the fields it does not show: the columns that did not fit
 * at all, and `later`, fields first seen after the rows the table was fitted to. Empty when none.
 */
export function notShown(table: ListTable, later: readonly string[] = []): string {
  const hidden = table.fitted.widths.flatMap((w, i) => (w === undefined ? [table.columns[i]?.name] : []));
  const why = [
    ...(hidden.length > 0 ? [`(no room): ${hidden.join(', ')}`] : []),
    ...(later.length > 0 ? [`(not on the first page): ${later.join(', ')}`] : []),
  ];
  if (why.length === 0) return '';
  const { width: total, style } = table.layout;
  return wrap(`Not shown ${why.join('; ')}; --output json shows every field`, total, style.dim);
}

/**
 * `data` as a table no wider than `layout.width`: a list as one row per item (its scalar fields;
 * the header in bold), an object as field/value lines; a status (`state`, `status`) in colour.
 * Columns that did not fit at all are named on a line under the table.
 */
export function formatTable(data: unknown, layout: Layout): string {
  if (data === null || data === undefined) return '(none)\n';
  if (Array.isArray(data)) {
    if (data.length === 0) return '(no items)\n';
    const items = data as Record<string, unknown>[];
    const table = listTable(items, layout);
    return listRows(items, table, true) + notShown(table);
  }
  if (typeof data === 'object') {
    const rows = Object.entries(data).map(([key, value]) => [key, cell(value)]);
    const fitted = fitGrid(
      rows,
      (i) => i === 0,
      (i) => i,
      layout.width,
      false,
    );
    const lines = renderGrid(rows, fitted, (c, row, i) => {
      if (i === 0) return layout.style.bold(c);
      return isStatus(row[0] ?? '') ? statusStyle(layout.style, row[1] ?? '')(c) : c;
    }).split('\n');
    // An id is never cut (it could not be pasted into the next command): its line is whole, even
    // past the width, where the terminal wraps it.
    const keyWidth = Math.max(...rows.map(([key]) => width(key ?? '')));
    rows.forEach(([key = '', value = ''], i) => {
      if (isId(key) && value !== '' && !lines[i]?.endsWith(value))
        lines[i] = `${layout.style.bold(key)}${' '.repeat(keyWidth - width(key) + GAP)}${value}`;
    });
    return lines.join('\n');
  }
  return `${cut(cell(data), layout.width ?? Number.POSITIVE_INFINITY)}\n`;
}
