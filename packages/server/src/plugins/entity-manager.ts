import type { FastifyInstance } from 'fastify';
import type { Orm } from '../db/database.js';

/** One EntityManager per request (`request.em`): its own identity map, nothing shared between requests. */
export function registerEntityManager(app: FastifyInstance, orm: Orm): void {
  app.decorateRequest('em');
  app.addHook('onRequest', async (request) => {
    request.em = orm.em.fork();
  });
}
