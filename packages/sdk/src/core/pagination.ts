import { PAGINATION_HEADERS, REQUEST_ID_HEADER } from '@app/schemas';
import { checkedInteger } from '../internal/integer-option.js';
import type { APIResponse } from './api-promise.js';
import { MarketplaceError, ResponseValidationError } from './error.js';

export interface PageInfo {
  /** `Current-Page`: the page number returned (1-based). */
  readonly page: number;
  /** `Page-Items`: the page size (20). */
  readonly pageItems: number;
  /** `Total-Count`: items across all pages. */
  readonly totalCount: number;
  /** `Total-Pages`: at least 1, also for an empty list. */
  readonly totalPages: number;
}

/** Fetches a page; `signal` aborts it (a page fetched ahead that is no longer wanted). */
type FetchPage<T> = (page: number, signal?: AbortSignal) => Promise<Page<T>>;

/**
 * A count option (`toArray`'s `limit`, `callOperation`'s `maxItems` and `skip`) as given: an
 * integer of at least 0, or `Infinity` where that means no bound. `NaN` (`Number()` of an unset
 * variable) would walk every page, and a negative or a fraction would be taken silently: each is a
 * `RangeError`, like `concurrency`'s, before a page is fetched.
 */
export function checkedCount(name: string, value: number, infinite: boolean): number {
  return checkedInteger(
    value,
    { min: 0, infinite },
    () => `${name} must be a non-negative integer${infinite ? ' (or Infinity)' : ''}, got ${value}`,
  );
}

/** What a page's response is read from, made readable on first use (`PagePromise.withResponse()`). */
export interface ResponseSource {
  readonly response: Response;
}

/** Records where the response `page` came from is (the client does, as it makes each page). */
export function pageResponse<T>(page: Page<T>, source: ResponseSource): Page<T> {
  setSource(page, source);
  return page;
}

/** The response `page` came from, if it was recorded. */
const responseOf = (page: Page<unknown>): Response | undefined => sourceOf(page)?.response;

const DIGITS = /^\d+$/;

/** A pagination header's number; a collection response without it breaks the contract. */
function headerNumber(headers: Headers, name: string, status: number): number {
  const value = headers.get(name);
  if (value === null || !DIGITS.test(value))
    throw new ResponseValidationError(`Missing or invalid ${name} header: ${value}`, status, [], headers);
  return Number(value);
}

/** Reads the pagination headers; a collection response without them breaks the contract. */
export function pageInfo(headers: Headers, status: number): PageInfo {
  return {
    page: headerNumber(headers, PAGINATION_HEADERS.currentPage, status),
    pageItems: headerNumber(headers, PAGINATION_HEADERS.pageItems, status),
    totalCount: headerNumber(headers, PAGINATION_HEADERS.totalCount, status),
    totalPages: headerNumber(headers, PAGINATION_HEADERS.totalPages, status),
  };
}

// Set in `Page`'s static block: its record of the response, kept off its public surface. A field
// rather than a `WeakMap` entry per page (a weak entry costs the collector's work too).
let setSource: (page: Page<unknown>, source: ResponseSource) => void;
let sourceOf: (page: Page<unknown>) => ResponseSource | undefined;

/** One page of a collection, and the way to the next one. */
export class Page<T> implements PageInfo {
  readonly page: number;
  readonly pageItems: number;
  readonly totalCount: number;
  readonly totalPages: number;
  readonly #fetchPage: FetchPage<T>;
  #source: ResponseSource | undefined;

  static {
    setSource = (page, source) => {
      page.#source = source;
    };
    sourceOf = (page) => page.#source;
  }

  constructor(
    /** The items of this page, in the server's order. */
    readonly data: T[],
    info: PageInfo,
    fetchPage: FetchPage<T>,
    /** The response headers of this page (pagination headers, `X-Request-Id`, …). */
    readonly headers: Headers = new Headers(),
  ) {
    this.page = info.page;
    this.pageItems = info.pageItems;
    this.totalCount = info.totalCount;
    this.totalPages = info.totalPages;
    this.#fetchPage = fetchPage;
  }

  /** The server's `X-Request-Id` for this page; `null` when it sent none. */
  get requestId(): string | null {
    return this.headers.get(REQUEST_ID_HEADER);
  }

  hasNextPage(): boolean {
    return this.page < this.totalPages;
  }

  /** @throws MarketplaceError on the last page; check {@link hasNextPage} first. */
  getNextPage(): Promise<Page<T>> {
    if (!this.hasNextPage())
      return Promise.reject(new MarketplaceError('No next page: this is the last page'));
    return this.#fetchPage(this.page + 1);
  }
}

/**
 * What `list()` returns: await it for the first page, or iterate it for every item of every page.
 * Nothing is fetched until it is awaited or iterated.
 *
 * @example
 * ```ts
 * const page = await client.organizations.list();          // first page
 * for await (const org of client.organizations.list()) {}   // every organization
 * const ten = await client.me.notifications.list().toArray({ limit: 10 });
 * ```
 */
export class PagePromise<T> implements Promise<Page<T>>, AsyncIterable<T> {
  readonly [Symbol.toStringTag] = 'PagePromise';
  readonly #fetchPage: FetchPage<T>;
  readonly #start: number;
  readonly #concurrency: number;
  #first: Promise<Page<T>> | undefined;

  constructor(fetchPage: FetchPage<T>, start: number, concurrency: number) {
    this.#fetchPage = fetchPage;
    this.#start = start;
    this.#concurrency = checkedInteger(
      concurrency,
      { min: 1 },
      () => `concurrency must be a positive integer, got ${concurrency}`,
    );
  }

  #firstPage(): Promise<Page<T>> {
    this.#first ??= this.#fetchPage(this.#start);
    return this.#first;
  }

  // biome-ignore lint/suspicious/noThenProperty: a page promise is awaitable by design
  then<A = Page<T>, B = never>(
    onfulfilled?: ((page: Page<T>) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#firstPage().then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<Page<T> | B> {
    return this.#firstPage().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<Page<T>> {
    return this.#firstPage().finally(onfinally);
  }

  /**
   * The first page with the response it came from (its body readable) and its request id, as
   * `withResponse()` gives for every other call.
   * @example const { data: page, response } = await client.organizations.list().withResponse();
   */
  async withResponse(): Promise<APIResponse<Page<T>>> {
    const page = await this.#firstPage();
    const response = responseOf(page) ?? new Response(null, { headers: page.headers });
    return { data: page, response, requestId: response.headers.get(REQUEST_ID_HEADER) };
  }

  /** The first page's response only (its body readable). */
  async asResponse(): Promise<Response> {
    return (await this.withResponse()).response;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return new Items(this.#pages(Number.POSITIVE_INFINITY));
  }

  /**
   * Collects items in order; with `limit` (an integer of at least 0, or `Infinity`), stops fetching
   * pages once it has that many.
   * @throws RangeError for any other `limit` (`NaN`, a negative or a fraction), before any fetch
   */
  async toArray({ limit = Number.POSITIVE_INFINITY }: { limit?: number } = {}): Promise<T[]> {
    checkedCount('limit', limit, true);
    const items: T[] = [];
    for await (const page of this.#pages(limit))
      for (const item of page.data) if (items.push(item) >= limit) return items;
    return items;
  }

  /**
   * Yields pages in order. Once `Total-Pages` is known, up to `concurrency` following pages are in
   * flight at a time, but never a page that `limit` items cannot need. Pages still in flight when
   * the walk ends early (a `break` or a throw in the loop body, `toArray`'s limit, a failed page)
   * are aborted.
   */
  async *#pages(limit: number): AsyncGenerator<Page<T>, void, undefined> {
    if (limit <= 0) return;
    let page = await this.#firstPage();
    const lastUseful = page.page + Math.ceil(limit / Math.max(1, page.pageItems)) - 1;
    const inFlight = new Map<number, Promise<Page<T>>>();
    // Only pages fetched ahead (concurrency above 1) can be in flight when the walk ends: with one
    // at a time, the next page is asked for once the loop wants it. A signal on each fetch is not
    // free (undici registers a listener and a finalizer per request), so a walk of one page at a
    // time goes without.
    const ahead = this.#concurrency > 1 ? new AbortController() : undefined;
    let next = page.page + 1;
    try {
      for (;;) {
        yield page;
        if (!page.hasNextPage()) return;
        // The page right after the current one is always needed: a page may hold fewer than `pageItems`.
        while (
          next <= page.totalPages &&
          next <= page.page + this.#concurrency &&
          (next <= lastUseful || next === page.page + 1)
        ) {
          const pending = this.#fetchPage(next, ahead?.signal);
          // Pages abandoned (and aborted) by an early end must not surface as unhandled rejections.
          pending.catch(() => {});
          inFlight.set(next++, pending);
        }
        const following = inFlight.get(page.page + 1);
        if (following === undefined) return;
        inFlight.delete(page.page + 1);
        page = await following;
      }
    } finally {
      if (inFlight.size > 0) ahead?.abort();
    }
  }
}

/**
 * The items of a sequence of pages, one by one. An item of a page already here is handed over at
 * once: an async generator step per item (an `await` and a resume) cost about as much again as
 * the SDK's other work on a page. A call of `next()` made while an earlier one still waits for a
 * page waits behind it, so that calls are answered in order.
 */
class Items<T> implements AsyncIterator<T, undefined> {
  readonly #pages: AsyncGenerator<Page<T>, void, undefined>;
  #items: readonly T[] = [];
  #index = 0;
  #done = false;
  /** Settles once the last call of `next()` that had to wait is answered. */
  #waiting: Promise<unknown> | undefined;

  constructor(pages: AsyncGenerator<Page<T>, void, undefined>) {
    this.#pages = pages;
  }

  next(): Promise<IteratorResult<T, undefined>> {
    if (this.#waiting === undefined && this.#index < this.#items.length)
      return Promise.resolve({ value: this.#items[this.#index++] as T, done: false });
    const answer = (this.#waiting ?? Promise.resolve()).then(() => this.#take());
    // Cleared before the caller resumes (its reaction comes later), so its next call is quick.
    const answered = () => {
      if (this.#waiting === waiting) this.#waiting = undefined;
    };
    const waiting = answer.then(answered, answered);
    this.#waiting = waiting;
    return answer;
  }

  /** An early `break` (or a throw in the loop body): the pages fetched ahead are aborted. */
  async return(): Promise<IteratorResult<T, undefined>> {
    this.#done = true;
    this.#items = [];
    await this.#pages.return();
    return { value: undefined, done: true };
  }

  /** The next item, reading pages until one has it; after a failed page, the end. */
  async #take(): Promise<IteratorResult<T, undefined>> {
    while (this.#index >= this.#items.length) {
      if (this.#done) return { value: undefined, done: true };
      try {
        const next = await this.#pages.next();
        if (next.done) this.#done = true;
        else [this.#items, this.#index] = [next.value.data, 0];
      } catch (error) {
        this.#done = true;
        throw error;
      }
    }
    return { value: this.#items[this.#index++] as T, done: false };
  }
}
