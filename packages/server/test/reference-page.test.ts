/** `GET /docs`: the reference page's headers and the Scalar configuration it is rendered with. */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useTestServer } from './harness.js';

const server = useTestServer();

describe('GET /docs', () => {
  it('may not be framed and may contact nothing but this server (Content-Security-Policy)', async () => {
    for (const url of ['/docs', '/docs/', '/docs/js/scalar.js']) {
      const res = await server.app.inject({ url });
      const csp = String(res.headers['content-security-policy']);
      expect(csp, url).toContain("frame-ancestors 'none'");
      expect(csp, url).toContain("connect-src 'self'");
      expect(csp, url).toContain("default-src 'self'");
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
    }
  });

  it("switches off Scalar's hosted-service features: agent, MCP upload, developer tools, client, proxy", async () => {
    const page = (await server.app.inject({ url: '/docs/' })).body;
    const config = JSON.parse(
      /createApiReference\('#app', (\{[\s\S]*?\})\)\s*<\/script>/.exec(page)?.[1] ?? '{}',
    );
    expect(config).toMatchObject({
      agent: { disabled: true },
      mcp: { disabled: true },
      showDeveloperTools: 'never',
      hideClientButton: true,
      telemetry: false,
      withDefaultFonts: false,
    });
    expect(page).not.toMatch(/proxy/i);
    expect(page).not.toMatch(/scalar\.com/);
  });

  it('serves its 4 MB script compressed (br, gzip), and it and the page with an ETag, Cache-Control and 304', async () => {
    for (const url of ['/docs/js/scalar.js', '/docs/']) {
      const plain = await server.app.inject({ url, headers: { 'accept-encoding': 'identity' } });
      expect(plain.statusCode, url).toBe(200);
      expect(plain.headers['content-encoding'], url).toBeUndefined();
      const etag = String(plain.headers.etag);
      expect(etag, url).toMatch(/^W\/"[\w-]+"$/);
      expect(plain.headers.vary, url).toBe('accept-encoding');
      expect(plain.headers['cache-control'], url).toBe(
        url.endsWith('.js') ? 'public, max-age=86400' : 'no-cache',
      );
      // The page is under 1 KiB: sent as it is (compressing it would save less than it costs).
      const compressed = plain.rawPayload.length >= 1024;
      expect(compressed, url).toBe(url.endsWith('.js'));
      for (const [encoding, decode] of [
        ['br', brotliDecompressSync],
        ['gzip', gunzipSync],
      ] as const) {
        // Twice: the first answer of a path is made into the static one, the next comes from it.
        for (let i = 0; i < 2; i++) {
          const res = await server.app.inject({
            url,
            headers: { 'accept-encoding': `${encoding}, deflate` },
          });
          expect(res.headers.etag, url).toBe(etag);
          if (compressed) {
            expect(res.headers['content-encoding'], url).toBe(encoding);
            expect(res.rawPayload.length, url).toBeLessThan(plain.rawPayload.length / 2);
            expect(decode(res.rawPayload).equals(plain.rawPayload), url).toBe(true);
          } else expect(res.rawPayload.equals(plain.rawPayload), url).toBe(true);
          expect(String(res.headers['content-security-policy']), url).toContain("frame-ancestors 'none'");
        }
      }
      const refused = await server.app.inject({ url, headers: { 'accept-encoding': 'br;q=0, gzip;q=0' } });
      expect(refused.headers['content-encoding'], url).toBeUndefined();
      expect(refused.rawPayload.equals(plain.rawPayload), url).toBe(true);
      const cached = await server.app.inject({
        url,
        headers: { 'if-none-match': etag, 'accept-encoding': 'br' },
      });
      expect(cached.statusCode, url).toBe(304);
      expect(cached.rawPayload.length, url).toBe(0);
      expect(cached.headers.etag, url).toBe(etag);
    }
  });
});
