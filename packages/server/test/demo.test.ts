/**
 * What `serve --demo` prints: the demo token, a curl line, and for a web page (a Vite app on its
 * dev server's origin), whether browsers may call the API and how to allow them.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ensureDemo } from '../src/demo.js';
import { useTestServer } from './harness.js';

const server = useTestServer();

/** What ensureDemo prints with `corsOrigins`. */
async function printed(corsOrigins: string[]): Promise<string> {
  const print = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    await ensureDemo(server.app, server.orm, { ...server.config, corsOrigins }, server.config.baseUrl);
    return print.mock.calls.map((c) => String(c[0])).join('');
  } finally {
    print.mockRestore();
  }
}

describe('serve --demo: what it prints for web pages', () => {
  afterEach(() => vi.restoreAllMocks());

  it('without CORS origins: that browsers are refused, and the setting that allows a page', async () => {
    const text = await printed([]);
    expect(text).toContain('Demo token: mkt_');
    expect(text).toContain(
      'Web pages on another origin are refused (no CORS). To allow one, start with MARKETPLACE_CORS_ORIGINS=<its origin>, e.g. MARKETPLACE_CORS_ORIGINS=http://localhost:5173 for a Vite dev server',
    );
  });

  it('with CORS origins: the origins allowed', async () => {
    const text = await printed(['http://localhost:5173', 'http://127.0.0.1:4173']);
    expect(text).toContain('Web pages allowed (CORS): http://localhost:5173, http://127.0.0.1:4173\n');
    expect(text).not.toContain('are refused');
  });
});
