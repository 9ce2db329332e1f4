import { z } from 'zod';

/** Response headers of every collection endpoint. */
export const PAGINATION_HEADERS = {
  currentPage: 'Current-Page',
  pageItems: 'Page-Items',
  totalCount: 'Total-Count',
  totalPages: 'Total-Pages',
} as const;

const PAGE_MESSAGE = 'must be a positive integer';

/** `page`: 1-indexed; absent means 1. Any other size parameter is ignored. */
export const PageQuery = z.object({
  page: z.coerce
    .number({ error: PAGE_MESSAGE })
    .int({ error: PAGE_MESSAGE })
    .min(1, { error: PAGE_MESSAGE })
    .max(Number.MAX_SAFE_INTEGER, { error: PAGE_MESSAGE })
    .optional(),
});
export type PageQuery = z.input<typeof PageQuery>;
