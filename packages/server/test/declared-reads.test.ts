/**
 * Route reads are declarations (db/reads.ts), built into SQL from the entities' metadata: every
 * declared read of the route table builds, a page reads its total from the list its entity is
 * counted as, and a declaration that the metadata cannot satisfy is refused when it is built, not
 * answered wrongly at run time. (What the reads answer: round-trips, page-totals and the resources'
 * own tests.)
 */
import { describe, expect, it } from 'vitest';
import { rowObjectOf } from '../src/db/pages.js';
import { buildRead, type ReadOne, type ReadPage } from '../src/db/reads.js';
import { Campaign } from '../src/modules/campaigns/campaign.entity.js';
import { Collab } from '../src/modules/collabs/collab.entity.js';
import { JoinRequest } from '../src/modules/members/join-request.entity.js';
import { Organization } from '../src/modules/organizations/organization.entity.js';
import { publicRoutes } from '../src/routes.js';
import { useTestServer } from './harness.js';

const server = useTestServer();
const context = { owner: '$2', key: '$3', limit: '$3', offset: '$4', totalName: 'total' };
const build = (read: ReadOne | ReadPage) =>
  buildRead(server.orm.getMetadata().getByClassName(read.entity.meta.className), read, context);

describe('declared reads', () => {
  it('every route that declares a read builds it from its entity: a page or a row by its parameter', () => {
    const declared = publicRoutes.filter((route) => route.read);
    expect(declared.map((route) => route.name).sort()).toEqual([
      'campaigns.list',
      'campaigns.retrieve',
      'collabs.list',
      'collabs.retrieve',
      'organizations.retrieve',
    ]);
    for (const route of declared) {
      const built = build(route.read as ReadOne | ReadPage);
      if (route.name.endsWith('.list')) expect(built.rows).toMatch(/limit \$3::bigint offset \$4::bigint/);
      else expect(built.rows).toMatch(/"id" = \$3$/);
    }
  });

  it('reads a page through the order its declaration names, without the columns it omits, and its total from row_counts', () => {
    const built = build({
      entity: Collab,
      in: 'organization',
      order: ['createdAt desc', 'id desc'],
      page: true,
      omit: ['brief', 'briefHtml'],
    });
    expect(built.rows).toContain('order by created_at desc, id desc');
    expect(built.rows).toContain('"organization_id" = $2');
    expect(built.rows).not.toMatch(/"brief(_html)?"/);
    expect(built.total).toContain("list = 'collabs' and owner_id = $2");
  });

  it('reads a row as one JSON object: values as the drivers read the columns, a type it cannot carry refused when built', () => {
    const meta = server.orm.getMetadata().getByClassName(Campaign.meta.className);
    const sql = rowObjectOf(meta, ['brief'], 'r.');
    // Timestamps and 64-bit amounts as their text (the drivers read both columns as text), the rest as is.
    expect(sql).toContain(`'created_at', r."created_at"::text`);
    expect(sql).toContain(`'cpm_amount', r."cpm_amount"::text`);
    expect(sql).toContain(`'countries', r."countries",`);
    expect(sql).toContain(`'organization_id', r."organization_id",`);
    expect(sql).not.toContain(`'brief'`);
    const fake = (columnTypes: string[]) =>
      ({ className: 'Fake', props: [{ name: 'day', fieldNames: ['day'], columnTypes }] }) as never;
    expect(() => rowObjectOf(fake(['date']))).toThrow(
      /Fake.day: a row read as one JSON object cannot carry date/,
    );
    expect(() => rowObjectOf(fake(['bigint[]']))).toThrow(/cannot carry bigint\[\]/);
    expect(rowObjectOf(fake(['varchar(3)[]']))).toBe(`json_build_object('day', "day")`);
    const wide = {
      className: 'Wide',
      props: Array.from({ length: 51 }, (_, i) => ({
        name: `c${i}`,
        fieldNames: [`c${i}`],
        columnTypes: ['text'],
      })),
    } as never;
    expect(() => rowObjectOf(wide)).toThrow(/more than 50 columns/);
  });

  it('refuses, when built, a page of an entity that no list counts and a property the entity lacks', () => {
    expect(() =>
      build({ entity: JoinRequest, in: 'organization', order: ['createdAt desc'], page: true }),
    ).toThrow(/a page of JoinRequest needs its list counted by its organization/);
    expect(() =>
      build({ entity: Organization, in: 'organization', order: ['createdAt desc'], page: true }),
    ).toThrow(/has no column for the property organization/);
    expect(() => build({ entity: Collab, in: 'organization', order: ['postedAt desc'], page: true })).toThrow(
      /has no column for the property postedAt/,
    );
    expect(() => build({ entity: Organization, by: 'id', in: 'organization' })).toThrow(
      /has no column for the property organization/,
    );
  });
});
