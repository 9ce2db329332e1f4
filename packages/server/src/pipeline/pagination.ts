import { PAGE_SIZE, PAGINATION_HEADERS } from '@app/schemas';
import type { FastifyReply } from 'fastify';

/** `limit`/`offset` of a page (1-indexed). */
export const pageWindow = (page: number) => ({ limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });

/** The pagination headers of decisions.md: `Page-Items` is the page size; at least one page. */
export function setPageHeaders(reply: FastifyReply, page: number, totalCount: number): void {
  reply.header(PAGINATION_HEADERS.currentPage, String(page));
  reply.header(PAGINATION_HEADERS.pageItems, String(PAGE_SIZE));
  reply.header(PAGINATION_HEADERS.totalCount, String(totalCount));
  reply.header(PAGINATION_HEADERS.totalPages, String(Math.max(1, Math.ceil(totalCount / PAGE_SIZE))));
}
