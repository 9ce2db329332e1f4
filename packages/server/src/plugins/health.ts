import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Orm } from '../db/database.js';
import { isDatabaseUnavailable } from './availability.js';

/**
 * A probe's question to the database failed. Whatever the error, the answer is `503`: a balancer
 * must take the replica out while its database does not answer its probe, and a `500` would say
 * the probe itself is broken (before, an error the server did not know as an outage, such as
 * PgBouncer's `08P01`, made `/ready` answer `500`). An outage the server knows is logged by the
 * check (plugins/pressure.ts) and the requests it fails; any other error is logged here, so a bug
 * does not hide behind the `503`.
 */
function unanswered(request: FastifyRequest, error: unknown): void {
  if (!isDatabaseUnavailable(error)) request.log.error({ err: error }, 'probe: the database question failed');
}

/**
 * `GET /health` (the process is alive and its database answers) and `GET /ready` (for load
 * balancers: the database answers and every migration this build knows is applied, so a replica
 * of a new release waits for `migrate`). Once all migrations are seen applied, only the database
 * is asked: migrations are not undone under a running server. While the overload protection's
 * database check finds the database down, both say so at once, without asking it again.
 */
export function registerHealthRoutes(app: FastifyInstance, orm: Orm): void {
  // Neither takes a slot of the cap on requests in progress nor is refused by it: both are one
  // `select 1` (or less), and a balancer must not take a busy but healthy replica out.
  app.get('/health', { schema: { hide: true }, config: { uncapped: true } }, async (request, reply) => {
    const down = () => {
      request.unavailableCause = 'database';
      return reply.code(503).header('retry-after', '1').send({ status: 'database unavailable' });
    };
    if (!app.databaseReachable()) return down();
    try {
      await request.em.execute('select 1');
      return { status: 'ok' };
    } catch (error) {
      unanswered(request, error);
      return down();
    }
  });
  let migrated = false;
  app.get('/ready', { schema: { hide: true }, config: { uncapped: true } }, async (request, reply) => {
    const notReady = (status: string, more: Record<string, unknown> = {}) => {
      request.unavailableCause = more.pending ? 'migrations' : 'database';
      return reply
        .code(503)
        .header('retry-after', '1')
        .send({ status, ...more });
    };
    if (!app.databaseReachable()) return notReady('database unavailable');
    try {
      if (migrated) await request.em.execute('select 1');
      else {
        const pending = (await orm.migrator.getPending()).map((m) => m.name);
        if (pending.length > 0) return notReady('migrations pending', { pending });
        migrated = true;
      }
      return { status: 'ready' };
    } catch (error) {
      unanswered(request, error);
      return notReady('database unavailable');
    }
  });
}
