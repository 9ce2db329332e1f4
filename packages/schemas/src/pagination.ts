import * as z from 'zod';
import { knownValueCheck } from './fast-check.js';

/** Response headers of every collection endpoint. */
export const PAGINATION_HEADERS = {
  currentPage: 'Current-Page',
  pageItems: 'Page-Items',
  totalCount: 'Total-Count',
  totalPages: 'Total-Pages',
} as const;

const PAGE_MESSAGE = 'must be a positive integer';

/*
 * A query string's `page` is decimal digits: `Number()` alone (coercion) would also read `0x10`,
 * `1e1`, `2.0`, `+1` and ` 1` as pages. Such a text becomes NaN here, refused like any other.
 */
const decimalOnly = (value: unknown) =>
  typeof value === 'string' && !/^[0-9]+$/.test(value) ? Number.NaN : value;

/** A page number: decimal digits in a query string, a number from the SDK. */
const pageNumber = z.preprocess(
  decimalOnly,
  z.coerce
    .number({ error: PAGE_MESSAGE })
    .int({ error: PAGE_MESSAGE })
    .min(1, { error: PAGE_MESSAGE })
    .max(Number.MAX_SAFE_INTEGER, { error: PAGE_MESSAGE }),
);
// The fast check (the SDK's check of a list's query): a page given as a number, an integer in range,
// goes through `decimalOnly` and the coercion unchanged. A string is coerced: zod decides.
knownValueCheck(pageNumber, (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 1);

/** `page`: 1-indexed; absent means 1. Any other size parameter is ignored. */
export const PageQuery = z.object({ page: pageNumber.optional() });
export type PageQuery = z.input<typeof PageQuery>;
