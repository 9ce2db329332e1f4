/** `GET /docs`: the reference page's headers and the Scalar configuration it is rendered with. */
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
});
