/** What a {@link DeadlineQueue} links its items with: an item waits in one queue at a time. */
export class Queued {
  /** When it falls due (`performance.now()` time). */
  due = 0;
  queue: DeadlineQueue<this> | null = null;
  prev: this | null = null;
  next: this | null = null;
}

/**
 * Items that fall due a fixed delay after they are added, with one timer for all of them. As
 * every item waits the same delay, the order they were added in is the order they fall due: the
 * timer only ever waits for the oldest. The items are linked through their own fields, so that
 * adding and removing one allocates nothing and hashes nothing. A `setTimeout` and a
 * `clearTimeout` per request (a `Timeout` object each, put into and taken out of Node's timer
 * lists) cost more (docs/performance-log.md, issue #27 item 3).
 */
export class DeadlineQueue<T extends Queued> {
  #oldest: T | null = null;
  #newest: T | null = null;
  #timer: NodeJS.Timeout | undefined;

  /** `expire` is called once per item still queued `ms` after it was added. */
  constructor(
    readonly ms: number,
    private readonly expire: (item: T) => void,
  ) {}

  /** Queues `item`, taking it out of the queue it was in. */
  add(item: T): void {
    item.queue?.delete(item);
    item.queue = this;
    item.due = performance.now() + this.ms;
    item.prev = this.#newest;
    if (this.#newest) this.#newest.next = item;
    else this.#oldest = item;
    this.#newest = item;
    if (this.#timer === undefined) this.#arm(this.ms);
  }

  /** Takes `item` out of this queue, if it is in it. */
  delete(item: T): void {
    if (item.queue !== this) return;
    if (item.prev) item.prev.next = item.next;
    else this.#oldest = item.next;
    if (item.next) item.next.prev = item.prev;
    else this.#newest = item.prev;
    item.queue = item.prev = item.next = null;
  }

  #arm(ms: number): void {
    // Unreferenced: a pending deadline does not keep the process alive (its request's socket does).
    this.#timer = setTimeout(() => this.#sweep(), ms).unref();
  }

  /** Expires what is due, then waits for the oldest item left (none left: the timer stops). */
  #sweep(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (let item = this.#oldest; item; item = this.#oldest) {
      if (item.due > now) {
        this.#arm(Math.ceil(item.due - now));
        return;
      }
      this.delete(item);
      this.expire(item);
    }
  }
}
