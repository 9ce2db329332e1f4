/*
 * Pages cached until their list changes. A page of a versioned list (db/pages.ts `countedBy`:
 * an organization's collabs and campaigns) is answered from what its read selected, presented and
 * serialized; the list's version (the id of the last transaction that changed one of its rows)
 * says whether it can have changed since. So each replica keeps the JSON of the pages it answered,
 * with the version they were read at, and the statement that reads the caller and a page is told
 * that version: when the list is still at it, PostgreSQL reads no row of the page and the answer
 * is the kept JSON, with the total read in the same statement. The database decides on every
 * request, in the statement's snapshot, so a page is never older than the list it shows, on any
 * replica, and a write needs no message to the others.
 *
 * A route whose read is such a page answers with that read presented and nothing else
 * (modules/organization-resources/find.ts `presentList`), so its JSON is a function of the
 * organization, the page and the version (the base URL is the app's).
 */

/**
 * A page as answered: the version of its list it was read at, and its JSON as UTF-8 bytes (a
 * string would be encoded again for every answer: 3–6 µs of the ~145 a kept page costs).
 */
export interface CachedPage {
  readonly version: string;
  readonly body: Buffer;
}

/**
 * The pages a replica answered, least recently used dropped first once they hold more than
 * `maxBytes` (`MARKETPLACE_PAGE_CACHE_BYTES`; 0 keeps none).
 */
export class PageCache {
  /** Oldest first: a page read or kept moves to the end. */
  readonly #pages = new Map<string, CachedPage>();
  /** The key at the end: reading it again needs no move (a page polled in a loop). */
  #newest: string | undefined;
  #bytes = 0;

  constructor(readonly maxBytes: number) {}

  /** The key of a route's page of a list of one owner. */
  static keyOf(route: string, ownerId: string, page: number): string {
    return `${route} ${ownerId} ${page}`;
  }

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  /** The page kept under `key`, now the most recently used. */
  get(key: string): CachedPage | undefined {
    const found = this.#pages.get(key);
    if (found && key !== this.#newest) {
      this.#pages.delete(key);
      this.#pages.set(key, found);
      this.#newest = key;
    }
    return found;
  }

  /** Keeps a page answered at its version, in place of the one kept under `key`, if any. */
  set(key: string, page: CachedPage): void {
    const size = sizeOf(key, page);
    if (size > this.maxBytes) return;
    this.#drop(key);
    this.#pages.set(key, page);
    this.#newest = key;
    this.#bytes += size;
    for (const oldest of this.#pages.keys()) {
      if (this.#bytes <= this.maxBytes) break;
      this.#drop(oldest);
    }
  }

  /** Bytes held, roughly: the bodies' bytes and two per UTF-16 code unit of keys and versions. */
  get bytes(): number {
    return this.#bytes;
  }

  #drop(key: string): void {
    const found = this.#pages.get(key);
    if (!found) return;
    this.#pages.delete(key);
    this.#bytes -= sizeOf(key, found);
    if (key === this.#newest) this.#newest = undefined;
  }
}

/** What an entry holds in memory, roughly: its body's bytes, its strings at two bytes a code unit. */
const sizeOf = (key: string, page: CachedPage) => page.body.length + 2 * (key.length + page.version.length);
