/** Plain-text tables for a terminal: one row per item (scalar fields), or field/value for one object. */
const MAX = 48;

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  const line = text.replace(/\s+/g, ' ');
  return line.length > MAX ? `${line.slice(0, MAX - 1)}…` : line;
}

function grid(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return `${rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
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
