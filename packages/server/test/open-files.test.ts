/**
 * A process out of file descriptors keeps serving. Every connection takes one, and a process at
 * its open-file limit cannot open anything more (a file, a socket, `/proc/self/stat`): before,
 * the overload protection's periodic sample called `process.memoryUsage()`, which reads
 * `/proc/self/stat`, and its `EMFILE` thrown from a timer shut the whole server down ("shutting
 * down after an error", exit 1) within a second of 1 030 connections under `ulimit -n 1024`.
 */
import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerOverloadProtection } from '../src/plugins/availability.js';

/** What Node throws when the process has no file descriptor left. */
function tooManyOpenFiles(): never {
  throw Object.assign(new Error('EMFILE: too many open files, uv_resident_set_memory'), {
    code: 'EMFILE',
    errno: -24,
    syscall: 'uv_resident_set_memory',
  });
}

describe('the overload protection with no file descriptor left', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('samples nothing that needs one: its timers throw nothing, and requests are still answered', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'] });
    const app = Fastify({ logger: false });
    await registerOverloadProtection(app, { maxEventLoopDelay: 1_000, maxConcurrentRequests: 4 });
    app.get('/', async () => ({ ok: true }));
    await app.ready();
    // From now on, reading the process's memory fails as it does at the open-file limit.
    vi.spyOn(process, 'memoryUsage').mockImplementation(tooManyOpenFiles);
    vi.spyOn(process.memoryUsage, 'rss').mockImplementation(tooManyOpenFiles);

    // Ten sample intervals: a sampler that reads the memory throws out of its timer here.
    expect(() => vi.advanceTimersByTime(10_000)).not.toThrow();
    vi.useRealTimers();
    const answer = await app.inject('/');
    expect(answer.statusCode).toBe(200);
    await app.close();
  });
});
