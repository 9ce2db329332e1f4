/**
 * Bench target 2, the anchor: what a careful engineer writes by hand with Fastify and
 * node-postgres for the authenticated organization show. The same two statements as the server
 * (the token with its user and membership, then the row), prepared (named), `JSON.stringify`, a
 * weak ETag. No ORM, no validation, no logging.
 */
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const CALLER = `select t.id as token_id, t.permission, u.id as user_id, m.id as membership_id, m.role
  from access_tokens t join users u on u.id = t.user_id
  left join memberships m on m.user_id = u.id and m.organization_id = $2
  where t.digest = $1`;
const ORGANIZATION = `select id, name, privacy_setting, website, logo, created_at, updated_at
  from organizations where id = $1`;
const baseUrl = process.env.MARKETPLACE_BASE_URL ?? '';

const app = Fastify({ logger: false });
app.get<{ Params: { id: string } }>('/organizations/:id.json', async (request, reply) => {
  const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (!token) return reply.code(401).send({ error: 'Unauthorized' });
  const digest = createHash('sha256').update(token).digest('hex');
  const caller = await pool.query({ name: 'caller', text: CALLER, values: [digest, request.params.id] });
  if (!caller.rows[0]) return reply.code(401).send({ error: 'Unauthorized' });
  if (!caller.rows[0].membership_id) return reply.code(404).send({ error: 'Not found' });
  const found = await pool.query({ name: 'organization', text: ORGANIZATION, values: [request.params.id] });
  const o = found.rows[0];
  if (!o) return reply.code(404).send({ error: 'Not found' });
  const body = JSON.stringify({
    id: o.id,
    name: o.name,
    privacy_setting: o.privacy_setting,
    website: o.website,
    created_at: o.created_at.toISOString(),
    updated_at: o.updated_at.toISOString(),
    url: `${baseUrl}/organizations/${o.id}`,
  });
  const etag = `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
  return reply.header('etag', etag).type('application/json').send(body);
});
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
