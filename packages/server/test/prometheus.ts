/** Reading `GET /metrics` (Prometheus' text format) in tests. */

type Labels = Record<string, string>;

/** The value of one series of a Prometheus text exposition (undefined when it is absent). */
export function sample(text: string, name: string, labels: Labels = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found: Labels = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g))
      found[key as string] = value as string;
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}
