/*
 * The `website` prefill against a local product page. Loopback is allowed here
 * (MARKETPLACE_PREFILL_ALLOW_PRIVATE=1); website-prefill.ssrf.test.ts runs with the default config.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import {
  fileOf,
  GIF,
  type OrganizationFixture,
  PNG,
  setUpOrganization,
} from '../../../test/fixtures/organization.js';
import { PNG_UPLOAD_URL, uploadName, useTestServer } from '../../../test/harness.js';
import { type PageServer, startPageServer } from '../../../test/page-server.js';
import { guardedFetch } from './guarded-fetch.js';

const server = useTestServer({ prefillAllowPrivate: true });

let page: PageServer;
let org: OrganizationFixture;

const DEFAULT_BRIEF_HTML =
  '<h2>About the product</h2>\n<h2>What we are looking for</h2>\n<h2>Deliverables</h2>';
const PREFILLED_BRIEF_HTML =
  '<h2>About the product</h2>\n<p>Light shoes for &lt;b&gt;long&lt;/b&gt; runs.</p>\n' +
  '<h2>What we are looking for</h2>\n<h2>Deliverables</h2>';

const uploadsDir = () => join(server.config.dataDir, 'uploads');
const storedFiles = () => (existsSync(uploadsDir()) ? readdirSync(uploadsDir()) : []);

beforeAll(async () => {
  page = await startPageServer();
});
afterAll(async () => {
  await page?.close();
});
beforeEach(async () => {
  rmSync(uploadsDir(), { recursive: true, force: true });
  page.hits.clear();
  page.hosts.length = 0;
  page.abandoned.length = 0;
  org = await setUpOrganization(server);
});

async function createFrom(website: string, options: { body?: unknown; form?: FormData } = {}) {
  const res = await server.post(
    `/organizations/${org.id}/collabs.json?website=${encodeURIComponent(website)}`,
    {
      token: org.admin.token,
      ...options,
    },
  );
  expect(res.statusCode).toBe(201);
  return res.json();
}

const expectDefaults = (collab: Record<string, unknown>) =>
  expect(collab).toMatchObject({
    name: 'Untitled collab',
    countries: ['US'],
    website: null,
    banner_image_url: null,
    brief: DEFAULT_BRIEF_HTML,
    state: 'draft',
  });

describe('POST …/collabs.json?website=URL', () => {
  it("text cut to a field's length keeps an emoji whole: no lone surrogate is stored or echoed", async () => {
    const created = await createFrom(`${page.origin}/emoji`);
    expect(created.name).toBe(`a${'😀'.repeat(99)}`);
    expect(created.brief).toContain(`<p>b${'😀'.repeat(2_499)}</p>`);
    expect(created.brief.isWellFormed()).toBe(true);
    const shown = await server.get(`/organizations/${org.id}/collabs/${created.id}.json`, {
      token: org.admin.token,
    });
    expect(shown.json()).toMatchObject({ name: created.name, brief: created.brief });
  });

  it("reads a page in the character set it declares (the Content-Type's, else a <meta>), not always as UTF-8", async () => {
    expect((await createFrom(`${page.origin}/latin1`)).name).toBe('Café Crème');
    expect((await createFrom(`${page.origin}/latin1-meta`)).name).toBe('Café Crème');
  });

  it('prefills name, brief, countries, website and banner from the Open Graph tags', async () => {
    const website = `${page.origin}/product`;
    const created = await createFrom(website);
    expect(created).toMatchObject({
      name: 'Trail & Run Shoes',
      countries: ['GB'],
      website,
      brief: PREFILLED_BRIEF_HTML,
      state: 'draft',
      currency: 'usd',
      banner_image_url: expect.stringMatching(PNG_UPLOAD_URL),
    });
    const name = uploadName(created.banner_image_url);
    expect(storedFiles()).toEqual([name]);
    expect((await server.getUpload(created.banner_image_url)).bytes).toEqual(PNG);
    expect(await server.sql('select name, website, countries, banner_image from collabs')).toEqual([
      { name: 'Trail & Run Shoes', website, countries: ['GB'], banner_image: name },
    ]);
    expect(page.hits.get('/product')).toBe(1);
    expect(page.hits.get('/image.png')).toBe(1);
  });

  it('resolves a relative og:image against the page', async () => {
    const created = await createFrom(`${page.origin}/relative-image`);
    expect(created.banner_image_url).not.toBeNull();
    expect(page.hits.get('/image.png')).toBe(1);
  });

  it('falls back to <title> for the name and keeps the other defaults', async () => {
    const website = `${page.origin}/title-only`;
    const created = await createFrom(website);
    expect(created).toMatchObject({
      name: 'Just a title',
      countries: ['US'],
      website,
      brief: DEFAULT_BRIEF_HTML,
      banner_image_url: null,
    });
  });

  it('lets explicit payload fields win over the page', async () => {
    const created = await createFrom(`${page.origin}/product`, {
      body: {
        collab: { name: 'Mine', countries: ['de'], website: 'https://mine.example/', brief: 'My brief' },
      },
    });
    expect(created).toMatchObject({
      name: 'Mine',
      countries: ['DE'],
      website: 'https://mine.example/',
      brief: '<p>My brief</p>',
    });
    // What the payload did not give still comes from the page.
    expect(created.banner_image_url).not.toBeNull();
  });

  it('lets an uploaded banner win over og:image', async () => {
    const form = new FormData();
    form.append('collab[banner_image]', fileOf(GIF, 'b.gif', 'image/gif'));
    const created = await createFrom(`${page.origin}/product`, { form });
    expect(created.name).toBe('Trail & Run Shoes');
    expect(created.banner_image_url).toMatch(/\.gif$/);
    expect(storedFiles()).toHaveLength(1);
  });

  it.each([
    ['is not an image', '/fake-image', '/not-an-image.png'],
    ['is over the upload limit', '/big-image', '/huge.png'],
  ])('skips an og:image that %s, and prefills the rest', async (_label, path, imagePath) => {
    const created = await createFrom(`${page.origin}${path}`);
    expect(created).toMatchObject({ name: 'Trail & Run Shoes', banner_image_url: null, countries: ['GB'] });
    expect(page.hits.get(imagePath)).toBe(1);
    expect(storedFiles()).toEqual([]);
  });

  it('follows up to 3 redirects', async () => {
    const created = await createFrom(`${page.origin}/redirect/3`);
    expect(created.name).toBe('Trail & Run Shoes');
    expect(created.website).toBe(`${page.origin}/redirect/3`);
  });

  it('gives up after 3 redirects and creates the draft from the defaults', async () => {
    expectDefaults(await createFrom(`${page.origin}/redirect/4`));
    expect(page.hits.get('/product')).toBeUndefined();
  });

  it('reads the tags of a page longer than 1 MiB from its first MiB', async () => {
    const created = await createFrom(`${page.origin}/large-page`);
    expect(created.name).toBe('Trail & Run Shoes');
  });

  it.each([
    ['a page that is not HTML', '/json'],
    ['a 404 page', '/missing'],
  ])('creates the draft from the defaults for %s', async (_label, path) => {
    expectDefaults(await createFrom(`${page.origin}${path}`));
    expect(await server.sql('select name from collabs')).toEqual([{ name: 'Untitled collab' }]);
  });

  // The key's transaction used to open before the handler and so held the database while the page
  // was fetched (up to 3 s twice): on PGlite every other request waited, on PostgreSQL one of the
  // pool's connections stayed taken, and a few such requests made others' 503s. Now the page is
  // fetched first and the key taken after (organization-resource.ts, create).
  it('a create with an Idempotency-Key holds no transaction while the page is fetched: another read is answered meanwhile', async () => {
    const requested = page.nextRequest('/held');
    const creating = server.post(
      `/organizations/${org.id}/collabs.json?website=${encodeURIComponent(`${page.origin}/held`)}`,
      { token: org.admin.token, headers: { 'idempotency-key': 'held-page-1' } },
    );
    await requested;
    const read = await server.get(`/organizations/${org.id}/collabs.json`, { token: org.member.token });
    expect(read.statusCode).toBe(200);
    if (inject('database').kind === 'postgres') {
      const [open] = await server.sql<{ count: string }>(
        `select count(*) from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`,
      );
      expect(Number(open?.count)).toBe(0);
    }
    // The page is still being fetched (on PGlite the read above waited until it was given up).
    expect(page.abandoned).toEqual([]);
    page.release();
    const created = await creating;
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ name: 'Trail & Run Shoes' });
    const again = await server.post(
      `/organizations/${org.id}/collabs.json?website=${encodeURIComponent(`${page.origin}/held`)}`,
      { token: org.admin.token, headers: { 'idempotency-key': 'held-page-1' } },
    );
    // The replay: the same collab, not a second one, and the page not fetched again.
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(page.hits.get('/held')).toBe(1);
    expect(again.json()).toEqual(created.json());
    const [rows] = await server.sql<{ count: string }>(
      'select count(*) from collabs where organization_id = ?',
      [org.id],
    );
    expect(Number(rows?.count)).toBe(1);
  });

  it('creates the draft from the defaults when nothing listens', async () => {
    const closed = await startPageServer();
    await closed.close();
    expectDefaults(await createFrom(`${closed.origin}/product`));
  });
});

describe('guardedFetch', () => {
  const options = {
    allowPrivate: true,
    timeoutMs: 3_000,
    maxBytes: 1024 * 1024,
    maxRedirects: 3,
    accept: 'text/html',
  };

  it('gives up when the time budget runs out: the request is abandoned, with a TimeoutError', async () => {
    const abandoned = page.nextAbandoned();
    // A budget the request reaches the page within (loopback), and that then runs out: the
    // rejection is the budget's own abort, not undici's (its header timeout is 300 s) nor another
    // error.
    const fetching = guardedFetch(`${page.origin}/hang`, { ...options, timeoutMs: 1_000 });
    await expect(fetching).rejects.toMatchObject({ name: 'TimeoutError' });
    // The page saw its connection closed before it answered: the fetch did not linger.
    expect(await abandoned).toBe('/hang');
    expect(page.abandoned).toEqual(['/hang']);
    expect(page.hits.get('/hang')).toBe(1);
  });

  it('keeps at most maxBytes of the body and says it is incomplete', async () => {
    const body = await guardedFetch(`${page.origin}/large-page`, { ...options, maxBytes: 1000 });
    expect(body.data.length).toBe(1000);
    expect(body.complete).toBe(false);
  });

  it('connects to the address that was checked, not to a second DNS answer', async () => {
    // rebind.test does not exist in DNS: the request only works because the checked address is used.
    const body = await guardedFetch(`http://rebind.test:${page.port}/product`, {
      ...options,
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(body.complete).toBe(true);
    expect(page.hosts).toEqual([`rebind.test:${page.port}`]);
  });

  it('fetches public pages from ports 80 and 443 only', async () => {
    const looksPublic = async () => [{ address: '127.0.0.1', family: 4 as const }];
    await expect(
      guardedFetch(`http://shop.test:${page.port}/product`, {
        ...options,
        allowPrivate: false,
        resolve: looksPublic,
      }),
    ).rejects.toThrow(`port ${page.port} is not allowed`);
    expect(page.hits.get('/product') ?? 0).toBe(0);
  });

  it('gives up a DNS resolution that does not answer within its own timeout', async () => {
    const hangs = () => new Promise<never>(() => undefined);
    await expect(
      guardedFetch('http://slow-dns.test/product', {
        ...options,
        timeoutMs: 60_000,
        dnsTimeoutMs: 50,
        resolve: hangs,
      }),
    ).rejects.toThrow('resolving slow-dns.test took longer than 50 ms');
  });

  it.each(['file:///etc/passwd', 'ftp://127.0.0.1/'])('refuses a redirect to %s', async (target) => {
    await expect(
      guardedFetch(`${page.origin}/to?url=${encodeURIComponent(target)}`, options),
    ).rejects.toThrow(/is not allowed/);
  });
});
