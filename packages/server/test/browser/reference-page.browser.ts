import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { publicEndpoints } from '@app/schemas';
import { startTestServer, type TestServer } from '@app/testing';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Where the screenshot for the reviewer goes (gitignored). */
const SCREENSHOT_DIR = resolve(import.meta.dirname, 'output');

let server: TestServer;
let browser: Browser;
let url: string;

beforeAll(async () => {
  server = await startTestServer();
  url = server.url;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('GET /docs, the API reference', () => {
  it('renders every tag and every operation of the document, without console errors or requests elsewhere', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    const elsewhere: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => {
      if (!r.url().startsWith(url) && !r.url().startsWith('data:')) elsewhere.push(r.url());
    });
    // Offline: anything not served by this server is refused.
    await page.route(
      (u) => !u.href.startsWith(url) && u.protocol !== 'data:',
      (route) => route.abort(),
    );

    const response = await page.goto(`${url}/docs`);
    expect(response?.status()).toBe(200);
    const doc = await (await fetch(`${url}/openapi.json`)).json();
    await page.getByText(doc.info.title).first().waitFor({ timeout: 20_000 });
    // Open every tag of the sidebar that is closed, so that its operations are listed.
    const sidebar = page.locator('.t-doc__sidebar').first();
    const tagIds = await sidebar
      .locator('li[data-sidebar-id*="/tag/"]')
      .evaluateAll((items) =>
        items.map((li) => li.getAttribute('data-sidebar-id') ?? '').filter((id) => /\/tag\/[^/]+$/.test(id)),
      );
    expect(tagIds).toHaveLength(doc.tags.length);
    for (const id of tagIds) {
      const item = sidebar.locator(`li[data-sidebar-id="${id}"]`);
      if ((await item.locator('li').count()) === 0) await item.locator('a').first().click();
      await item.locator('li').first().waitFor();
    }
    const text = (await sidebar.textContent()) ?? '';
    const missing = [
      ...(doc.tags as { name: string }[]).map((t) => t.name).filter((name) => !text.includes(name)),
      ...publicEndpoints.map((e) => e.summary).filter((summary) => !text.includes(summary)),
    ];
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'reference-page.png'), fullPage: false });
    expect(missing).toEqual([]);
    expect(errors).toEqual([]);
    expect(elsewhere).toEqual([]);
  });
});
