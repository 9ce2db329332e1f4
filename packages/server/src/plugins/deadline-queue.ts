/**
 * Items that fall due a fixed delay after they are added, with one timer for all of them. As
 * every item waits the same delay, the order they were added in is the order they fall due: the
 * timer only ever waits for the oldest. A `setTimeout` and `clearTimeout` per request (a `Timeout`
 * object each, inserted into and taken out of Node's timer lists) cost more than the `Map` entry
 * that replaces them (docs/performance-log.md, issue #27 item 3).
 */
export class DeadlineQueue<T> {
  readonly #due = new Map<T, number>();
  #timer: NodeJS.Timeout | undefined;

  /** `expire` is called once per item still queued `ms` after it was added. */
  constructor(
    readonly ms: number,
    private readonly expire: (item: T) => void,
  ) {}

  add(item: T): void {
    this.#due.set(item, performance.now() + this.ms);
    if (this.#timer === undefined) this.#arm(this.ms);
  }

  delete(item: T): void {
    this.#due.delete(item);
  }

  #arm(ms: number): void {
    // Unreferenced: a pending deadline does not keep the process alive (its request's socket does).
    this.#timer = setTimeout(() => this.#sweep(), ms).unref();
  }

  /** Expires what is due, then waits for the oldest item left (none left: the timer stops). */
  #sweep(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (const [item, due] of this.#due) {
      if (due > now) {
        this.#arm(Math.ceil(due - now));
        return;
      }
      this.#due.delete(item);
      this.expire(item);
    }
  }
}
