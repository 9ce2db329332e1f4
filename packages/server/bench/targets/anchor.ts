/**
 * Bench target 2, the anchor: what a careful engineer writes by hand with Fastify and
 * node-postgres for the authenticated organization show. The same two statements as the server
 * (the token with its user and membership, then the row), prepared (named), `JSON.stringify`, a
 * weak ETag. No ORM, no validation, no logging.
 *
 * The same show in **one** statement (`/one-statement/organizations/:id.json`): the caller and
 * the organization read together, the organization in a lateral join that reads it only for a
 * member, the statement shape the server uses. This is the anchor of the show's target.
 *
 * The same by hand for a page of collabs, twice, to measure what the list's target asks of any
 * code on this stack: the caller, then the page with its total in one prepared statement,
 *   - `…/collabs.json`: the rows decoded by `pg` and written with `JSON.stringify`, the same body
 *     and pagination headers as the server (the bench checks the bodies are equal);
 *   - `…/collabs-built-by-postgres.json`: PostgreSQL writes each item's JSON and joins them
 *     (`row_to_json`, `string_agg`); Node only frames the array. The same items, though not the
 *     same bytes as `JSON.stringify` would write (the bench checks they parse equal).
 */
import { createHash } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const CALLER = `select t.id as token_id, t.permission, u.id as user_id, m.id as membership_id, m.role
  from access_tokens t join users u on u.id = t.user_id
  left join memberships m on m.user_id = u.id and m.organization_id = $2
  where t.digest = $1`;
const ORGANIZATION = `select id, name, privacy_setting, website, logo, created_at, updated_at
  from organizations where id = $1`;
const CALLER_AND_ORGANIZATION = `select t.id as token_id, t.permission, u.id as user_id,
  m.id as membership_id, m.role, o.*
  from access_tokens t join users u on u.id = t.user_id
  left join memberships m on m.user_id = u.id and m.organization_id = $2
  left join lateral (select id, name, privacy_setting, website, logo, created_at, updated_at
    from organizations where m.id is not null and id = $2) o on true
  where t.digest = $1`;
const COLLABS = `select id, name, state, currency, countries, website, require_boosted_ads,
  requires_product_shipment, submissions_count, completed_count, published_at, created_at, updated_at,
  banner_image, organization_id, count(*) over () as total
  from collabs where organization_id = $1 order by created_at desc, id desc limit 20 offset $2`;
const utc = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const COLLABS_JSON = `select coalesce(string_agg(item, ',' order by created_at desc, id desc), '') as items,
  coalesce(max(total), 0) as total
  from (select row_to_json(j)::text as item, p.created_at, p.id, p.total
    from (select *, count(*) over () as total from collabs where organization_id = $1
      order by created_at desc, id desc limit 20 offset $2) p,
    lateral (select p.id, p.name, p.state, p.currency, p.countries, p.website, p.require_boosted_ads,
      p.requires_product_shipment, p.submissions_count, p.completed_count,
      ${utc('p.published_at')} as published_at, ${utc('p.created_at')} as created_at,
      ${utc('p.updated_at')} as updated_at,
      $3::text || '/organizations/' || p.organization_id || '/collabs/' || p.id || '.json' as url,
      $3::text || '/uploads/' || p.banner_image as banner_image_url) j) items`;
const baseUrl = process.env.MARKETPLACE_BASE_URL ?? '';
const PAGE_SIZE = 20;

const app = Fastify({ logger: false });

/** The caller of the request's bearer token in `organizationId`, or the error already sent. */
async function member(request: FastifyRequest, reply: FastifyReply, organizationId: string) {
  const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (!token) return reply.code(401).send({ error: 'Unauthorized' });
  const digest = createHash('sha256').update(token).digest('hex');
  const caller = await pool.query({ name: 'caller', text: CALLER, values: [digest, organizationId] });
  if (!caller.rows[0]) return reply.code(401).send({ error: 'Unauthorized' });
  if (!caller.rows[0].membership_id) return reply.code(404).send({ error: 'Not found' });
  return null;
}

function pageHeaders(reply: FastifyReply, page: number, total: number) {
  return reply
    .header('Current-Page', String(page))
    .header('Page-Items', String(PAGE_SIZE))
    .header('Total-Count', String(total))
    .header('Total-Pages', String(Math.max(1, Math.ceil(total / PAGE_SIZE))));
}

interface OrganizationRow {
  id: string;
  name: string;
  privacy_setting: string;
  website: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The show's body, as the server writes it, with its weak ETag (both routes below). */
function sendOrganization(reply: FastifyReply, o: OrganizationRow) {
  const body = JSON.stringify({
    id: o.id,
    name: o.name,
    privacy_setting: o.privacy_setting,
    website: o.website,
    created_at: o.created_at.toISOString(),
    updated_at: o.updated_at.toISOString(),
    url: `${baseUrl}/organizations/${o.id}.json`,
  });
  const etag = `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
  return reply.header('etag', etag).type('application/json').send(body);
}

app.get<{ Params: { id: string } }>('/organizations/:id.json', async (request, reply) => {
  const refused = await member(request, reply, request.params.id);
  if (refused) return refused;
  const found = await pool.query({ name: 'organization', text: ORGANIZATION, values: [request.params.id] });
  const o = found.rows[0];
  if (!o) return reply.code(404).send({ error: 'Not found' });
  return sendOrganization(reply, o);
});

app.get<{ Params: { id: string } }>('/one-statement/organizations/:id.json', async (request, reply) => {
  const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (!token) return reply.code(401).send({ error: 'Unauthorized' });
  const digest = createHash('sha256').update(token).digest('hex');
  const values = [digest, request.params.id];
  const found = await pool.query({ name: 'caller_and_organization', text: CALLER_AND_ORGANIZATION, values });
  const o = found.rows[0];
  if (!o) return reply.code(401).send({ error: 'Unauthorized' });
  if (!o.membership_id || !o.id) return reply.code(404).send({ error: 'Not found' });
  return sendOrganization(reply, o);
});

type ListRequest = { Params: { id: string }; Querystring: { page?: string } };
app.get<ListRequest>('/organizations/:id/collabs.json', async (request, reply) => {
  const refused = await member(request, reply, request.params.id);
  if (refused) return refused;
  const page = Number(request.query.page ?? 1);
  const values = [request.params.id, (page - 1) * PAGE_SIZE];
  const { rows } = await pool.query({ name: 'collabs', text: COLLABS, values });
  const iso = (date: Date | null) => (date ? date.toISOString() : null);
  const body = JSON.stringify(
    rows.map((c) => ({
      id: c.id,
      name: c.name,
      state: c.state,
      currency: c.currency,
      countries: c.countries,
      website: c.website,
      require_boosted_ads: c.require_boosted_ads,
      requires_product_shipment: c.requires_product_shipment,
      submissions_count: c.submissions_count,
      completed_count: c.completed_count,
      published_at: iso(c.published_at),
      created_at: iso(c.created_at),
      updated_at: iso(c.updated_at),
      url: `${baseUrl}/organizations/${c.organization_id}/collabs/${c.id}.json`,
      banner_image_url: c.banner_image ? `${baseUrl}/uploads/${c.banner_image}` : null,
    })),
  );
  return pageHeaders(reply, page, Number(rows[0]?.total ?? 0))
    .type('application/json')
    .send(body);
});
app.get<ListRequest>('/organizations/:id/collabs-built-by-postgres.json', async (request, reply) => {
  const refused = await member(request, reply, request.params.id);
  if (refused) return refused;
  const page = Number(request.query.page ?? 1);
  const values = [request.params.id, (page - 1) * PAGE_SIZE, baseUrl];
  const { rows } = await pool.query({ name: 'collabs_json', text: COLLABS_JSON, values });
  return pageHeaders(reply, page, Number(rows[0].total)).type('application/json').send(`[${rows[0].items}]`);
});
// Exit on the bench's SIGTERM rather than be killed by it, so `--cpu-prof` writes a profile.
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
