// The flow in a browser: Debian's Chromium (CI's `apt` task installs it; CHROMIUM_PATH to use
// another) driven by playwright-core, the SDK bundled with esbuild into a page served from an
// origin of its own; the test server allows that origin (MARKETPLACE_CORS_ORIGINS), so every
// call is a real cross-origin request with its preflight.
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { chromium } from 'playwright-core';
import { MISSING_ID } from './flow.mjs';
import { bundle, skip, withServer } from './harness.mjs';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(executablePath)) skip(`no Chromium at ${executablePath}`);

const script = await bundle('globalThis.runFlow = (server) => flow(sdk, server);');
const page = createServer((req, res) => {
  if (req.url === '/flow.js') res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
  else
    res
      .writeHead(200, { 'Content-Type': 'text/html' })
      .end('<!doctype html><title>@app/sdk</title><script type="module" src="/flow.js"></script>');
});
await new Promise((listening) => page.listen(0, '127.0.0.1', listening));
const origin = `http://127.0.0.1:${page.address().port}`;

const browser = await chromium.launch({
  executablePath,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const version = browser.version();
  await withServer(
    `Chromium ${version}`,
    async (server) => {
      const tab = await browser.newPage();
      const problems = [];
      // Chromium logs every 4xx answer; the flow's one 404 (NotFoundError) is expected.
      const expected = (message) => message.location().url.includes(`/organizations/${MISSING_ID}.json`);
      tab.on('console', (message) => {
        if (message.type() === 'error' && !expected(message))
          problems.push(`${message.text()} (${message.location().url})`);
      });
      tab.on('pageerror', (error) => problems.push(error.message));
      await tab.goto(origin);
      await tab.waitForFunction(() => typeof globalThis.runFlow === 'function');
      const lines = await tab
        .evaluate((s) => globalThis.runFlow(s), server)
        .catch((error) => {
          throw new Error([error.message, ...problems].join('\n'));
        });
      if (problems.length > 0) throw new Error(`the page logged errors:\n${problems.join('\n')}`);
      const agent = await tab.evaluate(() => navigator.userAgent);
      return [`${agent}, page at ${origin}, API at ${server.baseUrl}`, ...lines.map((l) => `  ${l}`)].join(
        '\n',
      );
    },
    { env: { MARKETPLACE_CORS_ORIGINS: origin } },
  );
} finally {
  await browser.close();
  page.close();
}
