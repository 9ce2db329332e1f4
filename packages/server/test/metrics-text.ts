/**
 * Reading `GET /metrics` (Prometheus' text format) in tests: one series' value, and the `503`s
 * by cause (`http_unavailable_responses_total`), which say which path answered a request.
 */

import { UNAVAILABLE_CAUSES } from '../src/http/errors.js';

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

export type UnavailableCounts = Record<(typeof UNAVAILABLE_CAUSES)[number], number>;

/** `503`s answered so far, by cause (every cause is there from the start, at 0). */
export function unavailableCounts(text: string): UnavailableCounts {
  return Object.fromEntries(
    UNAVAILABLE_CAUSES.map((cause) => [
      cause,
      sample(text, 'http_unavailable_responses_total', { cause }) ?? Number.NaN,
    ]),
  ) as UnavailableCounts;
}

/** What was counted between two scrapes, by cause. */
export function unavailableSince(before: UnavailableCounts, after: UnavailableCounts): UnavailableCounts {
  return Object.fromEntries(
    UNAVAILABLE_CAUSES.map((cause) => [cause, after[cause] - before[cause]]),
  ) as UnavailableCounts;
}
