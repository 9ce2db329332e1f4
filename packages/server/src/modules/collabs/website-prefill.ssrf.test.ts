/*
 * SSRF protection of the `website` prefill, with the default config (private addresses refused).
 * A refused URL must never be contacted: the page server counts its requests, and undici's fetch
 * is watched to prove that a private IP literal is refused before any connection is attempted.
 *
 * `shop.test` stands for a public shop: it resolves to the loopback page server and, in this file
 * only, skips the address check (the mocked resolver below). Every other host goes through the
 * real check, so a redirect from the "public" page to loopback shows the check on every hop.
 */
import { fetch } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type OrganizationFixture, setUpOrganization } from '../../../test/fixtures/organization.js';
import { useTestServer } from '../../../test/harness.js';
import { type PageServer, startPageServer } from '../../../test/page-server.js';

vi.mock('undici', async (importOriginal) => {
  const real = await importOriginal<typeof import('undici')>();
  return { ...real, fetch: vi.fn(real.fetch) };
});

vi.mock('./public-address.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('./public-address.js')>();
  return {
    ...real,
    // The page server listens on a random port: this file proves the address checks, so ports
    // are let through (the port rule has its own test in website-prefill.test.ts).
    checkPort: () => undefined,
    resolvePublicAddresses: async (hostname: string, allowPrivate: boolean) =>
      hostname === 'shop.test'
        ? [{ address: '127.0.0.1', family: 4 }]
        : real.resolvePublicAddresses(hostname, allowPrivate),
  };
});

const server = useTestServer();

let page: PageServer;
let org: OrganizationFixture;

beforeAll(async () => {
  page = await startPageServer();
});
afterAll(async () => {
  await page?.close();
});
beforeEach(async () => {
  page.hits.clear();
  vi.mocked(fetch).mockClear();
  org = await setUpOrganization(server);
});

async function createFrom(website: string) {
  const res = await server.post(
    `/organizations/${org.id}/collabs.json?website=${encodeURIComponent(website)}`,
    {
      token: org.admin.token,
    },
  );
  expect(res.statusCode).toBe(201);
  const created = res.json();
  expect(created).toMatchObject({
    name: 'Untitled collab',
    countries: ['US'],
    website: null,
    banner_image_url: null,
    brief: '<h2>About the product</h2>\n<h2>What we are looking for</h2>\n<h2>Deliverables</h2>',
    state: 'draft',
  });
  expect(await server.sql('select name, website, banner_image from collabs')).toEqual([
    { name: 'Untitled collab', website: null, banner_image: null },
  ]);
  return created;
}

describe('website prefill with the default config', () => {
  it('works for a public host (the set-up the refusals below are measured against)', async () => {
    const res = await server.post(
      `/organizations/${org.id}/collabs.json?website=${encodeURIComponent(`http://shop.test:${page.port}/title-only`)}`,
      { token: org.admin.token },
    );
    expect(res.json().name).toBe('Just a title');
    expect(page.hits.get('/title-only')).toBe(1);
  });

  it.each([
    ['loopback', (p: PageServer) => `http://127.0.0.1:${p.port}/product`],
    ['loopback by name', (p: PageServer) => `http://localhost:${p.port}/product`],
    ['IPv6 loopback', (p: PageServer) => `http://[::1]:${p.port}/product`],
    ['IPv4-mapped IPv6 loopback', (p: PageServer) => `http://[::ffff:127.0.0.1]:${p.port}/product`],
    ['loopback in decimal', (p: PageServer) => `http://2130706433:${p.port}/product`],
    ['the unspecified address', (p: PageServer) => `http://0.0.0.0:${p.port}/product`],
  ])('refuses %s and never contacts it', async (_label, url) => {
    await createFrom(url(page));
    expect(page.hits.size).toBe(0);
  });

  it.each([
    ['a private address', 'http://10.0.0.1/'],
    ['a private address (172.16/12)', 'http://172.16.0.1/'],
    ['a private address (192.168/16)', 'https://192.168.1.1/'],
    ['the metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['a CGNAT address', 'http://100.64.0.1/'],
    ['an IPv6 unique-local address', 'http://[fd00::1]/'],
    ['an IPv6 link-local address', 'http://[fe80::1]/'],
    ['the metadata address as IPv4-mapped IPv6', 'http://[::ffff:169.254.169.254]/'],
    ['a multicast address', 'http://224.0.0.1/'],
  ])('refuses %s before any connection is attempted', async (_label, url) => {
    await createFrom(url);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('refuses a redirect from a public page to loopback, on the redirect hop', async () => {
    const target = `http://127.0.0.1:${page.port}/product`;
    await createFrom(`http://shop.test:${page.port}/to?url=${encodeURIComponent(target)}`);
    expect(page.hits.get('/to')).toBe(1);
    expect(page.hits.get('/product')).toBeUndefined();
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('refuses a redirect from a public page to a name that resolves to loopback', async () => {
    await createFrom(
      `http://shop.test:${page.port}/to?url=${encodeURIComponent(`http://localhost:${page.port}/product`)}`,
    );
    expect(page.hits.get('/product')).toBeUndefined();
  });

  it('refuses a redirect to the metadata address', async () => {
    await createFrom(
      `http://shop.test:${page.port}/to?url=${encodeURIComponent('http://169.254.169.254/latest/')}`,
    );
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('does not download an og:image on a private address', async () => {
    // The page is "public", but its og:image points at 127.0.0.1.
    const res = await server.post(
      `/organizations/${org.id}/collabs.json?website=${encodeURIComponent(`http://shop.test:${page.port}/private-image`)}`,
      { token: org.admin.token },
    );
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ name: 'Trail & Run Shoes', banner_image_url: null });
    expect(page.hits.get('/image.png')).toBeUndefined();
  });
});
