/**
 * Briefs through the API, as a hostile author would write them: a brief that cannot be rendered
 * is refused (422 on `brief`) and nothing is stored or changed; a show returns the HTML rendered
 * on write and never renders; briefs stored before that are rendered after the migrations.
 */
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { type OrganizationFixture, setUpOrganization } from '../../../test/fixtures/organization.js';
import { useTestServer } from '../../../test/harness.js';
import { markdownBrief } from '../../../test/markdown-briefs.js';
import { renderStoredBriefs } from './brief.js';

// A budget that the super-linear brief below (about 1.3 s on an idle machine) always exceeds.
const server = useTestServer({ briefRenderBudgetMs: 300 });
let org: OrganizationFixture;

beforeEach(async () => {
  org = await setUpOrganization(server);
});

const DEEP = `${'>'.repeat(19_998)} a`;
const SLOW = '*~_'.repeat(6_666);

describe.each([
  ['collabs', 'collab'],
  ['campaigns', 'campaign'],
] as const)('%s', (table, key) => {
  const base = () => `/organizations/${org.id}/${table}`;
  const rows = () =>
    server.sql<{ brief: string; brief_html: string | null }>(`select brief, brief_html from ${table}`);

  it.each([
    ['nested thousands deep', DEEP],
    ['super-linear to render', SLOW],
  ])('a create with a brief %s is 422 on brief, and stores nothing', async (_, brief) => {
    const res = await server.post(`${base()}.json`, { token: org.admin.token, body: { [key]: { brief } } });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ errors: { brief: [expect.stringContaining('cannot be rendered')] } });
    expect(await rows()).toHaveLength(0);
  });

  it('a PATCH with such a brief is 422, and the resource and its show stay as they were', async () => {
    const created = await server.post(`${base()}.json`, {
      token: org.admin.token,
      body: { [key]: { brief: 'Hello *world*' } },
    });
    expect(created.statusCode).toBe(201);
    const url = `${base()}/${created.json().id}.json`;
    for (const brief of [DEEP, SLOW]) {
      const res = await server.patch(url, {
        token: org.admin.token,
        body: { [key]: { name: 'Renamed', brief } },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors.brief).toHaveLength(1);
    }
    const show = await server.get(url, { token: org.admin.token });
    expect(show.statusCode).toBe(200);
    expect(show.json()).toMatchObject({ name: created.json().name, brief: '<p>Hello <em>world</em></p>' });
    expect(await rows()).toEqual([{ brief: 'Hello *world*', brief_html: '<p>Hello <em>world</em></p>' }]);
  });

  it('a show returns the HTML stored on write and does not render', async () => {
    const created = (
      await server.post(`${base()}.json`, { token: org.admin.token, body: { [key]: {} } })
    ).json();
    await server.sql(`update ${table} set brief_html = '<p>as stored</p>'`);
    const show = await server.get(`${base()}/${created.id}.json`, { token: org.member.token });
    expect(show.json().brief).toBe('<p>as stored</p>');
  });

  it('a brief stored before rendering on write is shown escaped, then rendered after the migrations', async () => {
    const created = (
      await server.post(`${base()}.json`, { token: org.admin.token, body: { [key]: {} } })
    ).json();
    await server.sql(`update ${table} set brief = 'Old <b>brief</b>', brief_html = null`);
    const url = `${base()}/${created.id}.json`;
    expect((await server.get(url, { token: org.admin.token })).json().brief).toBe(
      '<p>Old &#60;b&#62;brief&#60;/b&#62;</p>',
    );
    expect(await renderStoredBriefs(server.orm.em.fork())).toBe(1);
    expect((await server.get(url, { token: org.admin.token })).json().brief).toBe('<p>Old brief</p>');
    expect(await renderStoredBriefs(server.orm.em.fork())).toBe(0);
  });
});

describe('brief fuzzing through the API', () => {
  // 60 generated briefs, each a create and a show: about 15 s beside the other files on 2 cores,
  // and over 30 s on PostgreSQL while CI's contract checks share the cores (as fuzz.test.ts).
  it('never answers 5xx; every accepted brief shows 200 with the stored HTML', {
    timeout: 120_000,
  }, async () => {
    const statuses: Record<number, number> = {};
    await fc.assert(
      fc.asyncProperty(markdownBrief, async (brief) => {
        const res = await server.post(`/organizations/${org.id}/collabs.json`, {
          token: org.admin.token,
          body: { collab: { brief } },
        });
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        expect([201, 422]).toContain(res.statusCode);
        if (res.statusCode === 422) {
          expect(Object.keys(res.json().errors)).toEqual(['brief']);
          return;
        }
        const show = await server.get(`/organizations/${org.id}/collabs/${res.json().id}.json`, {
          token: org.member.token,
        });
        expect(show.statusCode).toBe(200);
        expect(show.json().brief).toBe(res.json().brief);
      }),
      { numRuns: 60, seed: 20261123 },
    );
    expect(statuses[201]).toBeGreaterThan(0);
  });
});
