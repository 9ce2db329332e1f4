import { EventEmitter } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { Em } from '../../db/database.js';
import { HttpError, unavailable, unprocessable } from '../../http/errors.js';
import type { BriefJob, BriefResult, READY } from './brief.worker.js';

/*
 * Briefs (collabs and campaigns) are stored as the Markdown the organization wrote and as the
 * sanitized HTML rendered from it, once, when the brief is written; a show never renders.
 *
 * Rendering runs in a worker thread with a time budget: some Markdown costs the renderer
 * super-linear time (a 20 000-character run of `*~_` takes over a second) and some overflows its
 * stack (thousands of nested `>`). In the worker neither blocks the event loop; a brief that
 * cannot be rendered within the budget is refused with `422` on `brief`, and the worker is
 * replaced.
 */

/**
 * Milliseconds of rendering a brief may take by default (`MARKETPLACE_BRIEF_RENDER_BUDGET_MS`); a
 * 20 000-character brief usually takes 1–50 ms.
 */
export const BRIEF_RENDER_BUDGET_MS = 1_000;
/** Renderings waiting at most; past that, a write with a brief is a transient `503`. */
const MAX_WAITING = 64;

interface Pending {
  job: BriefJob;
  budgetMs: number;
  userId: string | undefined;
  resolve(result: BriefResult): void;
}

/** Whose brief is rendered: the caller and the organization it is written in. */
export interface BriefOwner {
  userId?: string;
  organizationId?: string;
  /** Aborted when the client has gone away (or the request timed out). */
  signal?: AbortSignal;
}

/** One worker, one brief at a time, in arrival order; each rendering has its own budget. */
class BriefRenderer {
  #worker: Worker | undefined;
  #ready = false;
  #queue: Pending[] = [];
  #current: (Pending & { timer: NodeJS.Timeout }) | undefined;
  #nextId = 1;
  #held = false;
  /** Test seam: `queued` and `started` with `{ id, userId }`. */
  readonly events = new EventEmitter();

  render(source: string, budgetMs: number, owner: BriefOwner = {}): Promise<BriefResult> {
    if (this.#queue.length >= MAX_WAITING) throw unavailable('overload');
    return new Promise((resolve) => {
      const id = this.#nextId++;
      this.#queue.push({ job: { id, source }, budgetMs, resolve, userId: owner.userId });
      this.events.emit('queued', { id, userId: owner.userId });
      this.#pump();
    });
  }

  /** Test seam: while held, nothing more starts rendering (briefs wait in the queue). */
  hold(held: boolean): void {
    this.#held = held;
    this.#pump();
  }

  /** Briefs waiting, and rendering. */
  stats(): { queued: number; rendering: number } {
    return { queued: this.#queue.length, rendering: this.#current ? 1 : 0 };
  }

  #spawn(): Worker {
    const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    const worker = new Worker(new URL(`./brief.worker${ext}`, import.meta.url));
    worker.unref();
    this.#ready = false;
    worker.on('message', (message: BriefResult | typeof READY) => {
      if (typeof message !== 'string') return this.#settle(message);
      this.#ready = true;
      this.#pump();
    });
    worker.on('error', (error) => this.#fail(`failed: ${error.message}`));
    worker.on('exit', () => {
      if (this.#worker === worker) this.#worker = undefined;
    });
    return worker;
  }

  #pump(): void {
    if (this.#held || this.#current || this.#queue.length === 0) return;
    this.#worker ??= this.#spawn();
    if (!this.#ready) return;
    const next = this.#queue.shift() as Pending;
    const timer = setTimeout(() => this.#fail(`takes longer than ${next.budgetMs} ms`, true), next.budgetMs);
    this.#current = { ...next, timer };
    this.events.emit('started', { id: next.job.id, userId: next.userId });
    this.#worker.postMessage(next.job);
  }

  #settle(result: BriefResult): void {
    const current = this.#current;
    if (!current || current.job.id !== result.id) return;
    clearTimeout(current.timer);
    this.#current = undefined;
    current.resolve(result);
    this.#pump();
  }

  /**
   * Ends the current rendering with `error`, and replaces the worker (it may still be busy). After
   * a brief over its budget the new one starts at once, so it is loaded and warm by the next brief;
   * after a crash, only when a brief needs one (a worker that cannot load must not loop).
   */
  #fail(error: string, respawn = false): void {
    const current = this.#current;
    const worker = this.#worker;
    this.#worker = respawn ? this.#spawn() : undefined;
    void worker?.terminate();
    if (current) this.#settle({ id: current.job.id, error });
    else this.#pump();
  }
}

/** The one renderer of the process (exported as a test seam: `hold`, `stats`, `events`). */
export const briefRenderer = new BriefRenderer();
const renderer = briefRenderer;

/** The latest renderings (the default templates are rendered on every create that keeps them). */
const recent = new Map<string, string>();
const RECENT_CAPACITY = 64;

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
  const result = await renderer.render(source, budgetMs, owner);
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
