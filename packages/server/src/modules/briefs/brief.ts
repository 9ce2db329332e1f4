import { EventEmitter } from 'node:events';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Em } from '../../db/database.js';
import { HttpError, UnavailableError, unavailable, unprocessable } from '../../http/errors.js';
import type { BriefJob, BriefResult, READY } from './brief.worker.js';

/*
 * Briefs (collabs and campaigns) are stored as the Markdown the organization wrote and as the
 * sanitized HTML rendered from it, once, when the brief is written; a show never renders.
 *
 * Rendering runs in a worker thread with a time budget: some Markdown costs the renderer
 * super-linear time (a 20 000-character run of `*~_` takes over a second) and some overflows its
 * stack (thousands of nested `>`). In the worker neither blocks the event loop; a brief that
 * cannot be rendered within the budget is refused with `422` on `brief`, and the worker is
 * replaced. How the renderer is shared between users is described below.
 */

/**
 * Milliseconds of rendering a brief may take by default (`MARKETPLACE_BRIEF_RENDER_BUDGET_MS`); a
 * 20 000-character brief usually takes 1–50 ms.
 */
export const BRIEF_RENDER_BUDGET_MS = 1_000;

/*
 * The renderer is shared by every user of the server, so each gets a fair share of it:
 *
 * - at most BRIEF_RENDERS_PER_USER briefs of one user and BRIEF_RENDERS_PER_ORGANIZATION of one
 *   organization are queued or rendering at a time; one more is `503` with `Retry-After: 1` for
 *   that user (or organization) only, while everyone else's briefs are still taken;
 * - the queue serves users round-robin: one brief of each user with briefs waiting, in turn, so
 *   a user with many briefs waiting delays another user's by at most one rendering of each;
 * - BRIEF_RENDER_WORKERS workers render side by side: one core is left to the event loop (and an
 *   embedded database), and at most two are used (more would only let one user's worst-case
 *   briefs take more of the machine);
 * - a brief whose client has gone away (or whose request timed out) leaves the queue at once; one
 *   already rendering finishes, and its result is thrown away. Nothing is stored for either.
 */

/** Briefs of one user queued or rendering at most; one more is a transient `503`. */
export const BRIEF_RENDERS_PER_USER = 4;
/** Briefs of one organization queued or rendering at most; one more is a transient `503`. */
export const BRIEF_RENDERS_PER_ORGANIZATION = 8;
/** Briefs waiting at most, of all users; past that, a write with a brief is a transient `503`. */
const MAX_WAITING = 64;
/** Worker threads rendering side by side: the cores but one, at least one and at most two. */
export const BRIEF_RENDER_WORKERS = Math.max(1, Math.min(2, availableParallelism() - 1));

/** Whose brief is rendered: the caller and the organization it is written in. */
export interface BriefOwner {
  userId?: string;
  organizationId?: string;
  /** Aborted when the client has gone away (or the request timed out). */
  signal?: AbortSignal;
}

interface Pending {
  job: BriefJob;
  budgetMs: number;
  /** The turn it waits in: its user's ('' for the server's own renderings). */
  userId: string;
  organizationId: string | undefined;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  resolve(result: BriefResult): void;
  reject(error: Error): void;
}

/** One worker thread and the brief it renders. */
interface Slot {
  worker: Worker | undefined;
  ready: boolean;
  current: (Pending & { timer: NodeJS.Timeout }) | undefined;
}

/** The answer to a brief whose request ended before it was rendered (nobody reads it). */
const abandoned = () => unavailable('timeout');

/** What the renderer holds, as the test seam and `stats()` report it. */
export interface BriefRendererStats {
  /** Briefs waiting for a worker. */
  queued: number;
  /** Briefs in a worker now. */
  rendering: number;
  /** Users, and organizations, with briefs queued or rendering. */
  users: number;
  organizations: number;
}

/**
 * Workers that render one brief each at a time, taking briefs from per-user queues in turn; each
 * rendering has its own budget.
 */
class BriefRenderer {
  readonly #slots: Slot[];
  /** Waiting briefs by user, in turn order: the first user is served next, then goes last. */
  readonly #queues = new Map<string, Pending[]>();
  #waiting = 0;
  /** Briefs queued or rendering, by user and by organization (entries at 0 are removed). */
  readonly #byUser = new Map<string, number>();
  readonly #byOrganization = new Map<string, number>();
  #nextId = 1;
  #held = false;
  /**
   * Test seam: `queued`, `started` and `dropped` (left the queue: its client went away), each with
   * `{ id, userId }`.
   */
  readonly events = new EventEmitter();

  constructor(workers: number) {
    this.#slots = Array.from({ length: workers }, () => ({
      worker: undefined,
      ready: false,
      current: undefined,
    }));
  }

  render(source: string, budgetMs: number, owner: BriefOwner = {}): Promise<BriefResult> {
    const userId = owner.userId ?? '';
    const { organizationId, signal } = owner;
    if (signal?.aborted) return Promise.reject(abandoned());
    if (
      this.#waiting >= MAX_WAITING ||
      (owner.userId !== undefined && (this.#byUser.get(userId) ?? 0) >= BRIEF_RENDERS_PER_USER) ||
      (organizationId !== undefined &&
        (this.#byOrganization.get(organizationId) ?? 0) >= BRIEF_RENDERS_PER_ORGANIZATION)
    )
      return Promise.reject(unavailable('overload'));
    return new Promise((resolve, reject) => {
      const id = this.#nextId++;
      const pending: Pending = {
        job: { id, source },
        budgetMs,
        userId,
        organizationId,
        signal,
        onAbort: undefined,
        resolve,
        reject,
      };
      if (signal) {
        pending.onAbort = () => this.#drop(pending);
        signal.addEventListener('abort', pending.onAbort, { once: true });
      }
      this.#count(pending, 1);
      const queue = this.#queues.get(userId);
      if (queue) queue.push(pending);
      else this.#queues.set(userId, [pending]);
      this.#waiting += 1;
      this.events.emit('queued', { id, userId: owner.userId });
      this.#pump();
    });
  }

  /** Test seam: while held, nothing more starts rendering (briefs wait in the queue). */
  hold(held: boolean): void {
    this.#held = held;
    this.#pump();
  }

  stats(): BriefRendererStats {
    return {
      queued: this.#waiting,
      rendering: this.#slots.filter((slot) => slot.current).length,
      users: this.#byUser.size,
      organizations: this.#byOrganization.size,
    };
  }

  #count(pending: Pending, change: 1 | -1): void {
    const add = (counts: Map<string, number>, key: string) => {
      const count = (counts.get(key) ?? 0) + change;
      if (count > 0) counts.set(key, count);
      else counts.delete(key);
    };
    add(this.#byUser, pending.userId);
    if (pending.organizationId !== undefined) add(this.#byOrganization, pending.organizationId);
  }

  /** A brief leaves the renderer (rendered, refused or dropped): it no longer counts. */
  #release(pending: Pending): void {
    this.#count(pending, -1);
    if (pending.onAbort) pending.signal?.removeEventListener('abort', pending.onAbort);
  }

  /** The client of a brief went away: a waiting brief leaves the queue (one rendering finishes). */
  #drop(pending: Pending): void {
    const queue = this.#queues.get(pending.userId);
    const index = queue?.indexOf(pending) ?? -1;
    if (!queue || index < 0) return;
    queue.splice(index, 1);
    if (queue.length === 0) this.#queues.delete(pending.userId);
    this.#waiting -= 1;
    this.#release(pending);
    this.events.emit('dropped', { id: pending.job.id, userId: pending.userId || undefined });
    pending.reject(abandoned());
  }

  /** The next brief: the first waiting user's oldest, and that user goes to the end of the turn. */
  #next(): Pending {
    const [userId, queue] = this.#queues.entries().next().value as [string, Pending[]];
    const next = queue.shift() as Pending;
    this.#queues.delete(userId);
    if (queue.length > 0) this.#queues.set(userId, queue);
    this.#waiting -= 1;
    return next;
  }

  #spawn(slot: Slot): Worker {
    const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    const worker = new Worker(new URL(`./brief.worker${ext}`, import.meta.url));
    slot.ready = false;
    worker.on('message', (message: BriefResult | typeof READY) => {
      if (slot.worker !== worker) return;
      if (typeof message !== 'string') return this.#settle(slot, message);
      slot.ready = true;
      this.#pump();
    });
    worker.on('error', (error) => {
      if (slot.worker === worker) this.#fail(slot, `failed: ${error.message}`);
    });
    worker.on('exit', () => {
      if (slot.worker !== worker) return;
      slot.worker = undefined;
      slot.ready = false;
    });
    return worker;
  }

  #pump(): void {
    this.#assign();
    // A worker holds the process only while a brief waits for it or renders on it: an idle one
    // kept a process that had rendered a brief alive for good (a test runner's never exited).
    for (const { worker, current } of this.#slots)
      if (current || this.#waiting > 0) worker?.ref();
      else worker?.unref();
  }

  /** Gives the waiting briefs to the idle, ready workers (starting a worker where there is none). */
  #assign(): void {
    if (this.#held) return;
    for (const slot of this.#slots) {
      if (this.#waiting === 0) return;
      if (slot.current) continue;
      slot.worker ??= this.#spawn(slot);
      if (!slot.ready) continue;
      const next = this.#next();
      const timer = setTimeout(
        () => this.#fail(slot, `takes longer than ${next.budgetMs} ms`, true),
        next.budgetMs,
      );
      slot.current = { ...next, timer };
      this.events.emit('started', { id: next.job.id, userId: next.userId || undefined });
      slot.worker.postMessage(next.job);
    }
  }

  #settle(slot: Slot, result: BriefResult): void {
    const current = slot.current;
    if (!current || current.job.id !== result.id) return;
    clearTimeout(current.timer);
    slot.current = undefined;
    this.#release(current);
    if (current.signal?.aborted) current.reject(abandoned());
    else current.resolve(result);
    this.#pump();
  }

  /**
   * Ends the slot's rendering with `error`, and replaces its worker (it may still be busy). After
   * a brief over its budget the new one starts at once, so it is loaded and warm by the next brief;
   * after a crash, only when a brief needs one (a worker that cannot load must not loop).
   */
  #fail(slot: Slot, error: string, respawn = false): void {
    const current = slot.current;
    const worker = slot.worker;
    slot.worker = undefined;
    slot.ready = false;
    if (respawn) slot.worker = this.#spawn(slot);
    void worker?.terminate();
    if (current) this.#settle(slot, { id: current.job.id, error });
    else this.#pump();
  }
}

/** The one renderer of the process (exported as a test seam: `hold`, `stats`, `events`). */
export const briefRenderer = new BriefRenderer(BRIEF_RENDER_WORKERS);
const renderer = briefRenderer;

/**
 * Characters of HTML a brief may render to. A brief of 20 000 characters usually renders to less
 * than 40 000; a reference link defined once with a long URL and used thousands of times would
 * render to megabytes.
 */
export const MAX_BRIEF_HTML_LENGTH = 200_000;

/** The latest renderings (the default templates are rendered on every create that keeps them). */
const recent = new Map<string, string>();
const RECENT_CAPACITY = 64;

/** Renderings queued or running, by budget and source: the same brief is rendered once at a time. */
const inflight = new Map<string, Promise<BriefResult>>();

const isAbandoned = (error: unknown) => error instanceof UnavailableError && error.reason === 'timeout';

/**
 * The rendering of `source`: the one already queued or running for the same brief (concurrent
 * creates with a default template render it once, and count once against their user's share), or
 * a new one. When the request that queued the shared one goes away, a request still waiting for
 * it queues its own.
 */
async function renderShared(source: string, budgetMs: number, owner: BriefOwner): Promise<BriefResult> {
  const key = `${budgetMs}:${source}`;
  for (let shared = inflight.get(key); shared; shared = inflight.get(key)) {
    try {
      return await shared;
    } catch (error) {
      if (!isAbandoned(error) || owner.signal?.aborted) throw error;
    }
  }
  const rendering = renderer.render(source, budgetMs, owner);
  inflight.set(key, rendering);
  try {
    return await rendering;
  } finally {
    if (inflight.get(key) === rendering) inflight.delete(key);
  }
}

/**
 * Renders a Markdown brief to sanitized HTML within `budgetMs` of rendering, or throws `422
 * {"errors": {"brief": [...]}}`.
 */
export async function renderBrief(
  source: string,
  budgetMs = BRIEF_RENDER_BUDGET_MS,
  owner: BriefOwner = {},
): Promise<string> {
  const cached = recent.get(source);
  if (cached !== undefined) return cached;
  const result = await renderShared(source, budgetMs, owner);
  if ('html' in result && result.html.length > MAX_BRIEF_HTML_LENGTH)
    throw unprocessable({
      brief: [
        `renders to more than ${MAX_BRIEF_HTML_LENGTH} characters of HTML; use fewer repeated links and less markup`,
      ],
    });
  if ('html' in result) {
    recent.set(source, result.html);
    if (recent.size > RECENT_CAPACITY) recent.delete(recent.keys().next().value as string);
    return result.html;
  }
  throw unprocessable({ brief: [`cannot be rendered: it ${result.error}; simplify its formatting`] });
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The HTML of a stored brief: the one rendered when it was written. A row written before briefs
 * were rendered on write (by an older server during a rolling upgrade) has none until
 * `renderStoredBriefs` runs; until then its Markdown is shown escaped, as one paragraph.
 */
export const briefHtmlOf = (row: { brief: string; briefHtml?: string | null }): string =>
  row.briefHtml ?? `<p>${escapeHtml(row.brief)}</p>`;

/**
 * Renders the briefs stored before briefs were rendered on write (run after the migrations, by
 * `serve` and `migrate`). A brief that cannot be rendered within the budget keeps the escaped
 * fallback of {@link briefHtmlOf}, stored, so it is not tried again. Returns how many were done.
 */
export async function renderStoredBriefs(em: Em): Promise<number> {
  let done = 0;
  for (const table of ['collabs', 'campaigns']) {
    for (;;) {
      const rows = await em.execute<{ id: string; brief: string }[]>(
        `select id, brief from ${table} where brief_html is null limit 100`,
      );
      if (rows.length === 0) break;
      for (const row of rows) {
        const html = await renderBrief(row.brief).catch((error: unknown) => {
          if (error instanceof HttpError && error.statusCode === 422)
            return briefHtmlOf({ ...row, briefHtml: null });
          throw error;
        });
        await em.execute(`update ${table} set brief_html = ? where id = ?`, [html, row.id]);
        done += 1;
      }
    }
  }
  return done;
}
