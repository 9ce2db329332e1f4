import type { FastifyInstance } from 'fastify';
import type { Em, Orm } from '../db/database.js';
import { POOLER_HINT } from '../db/driver-errors.js';
import { type Statements, type StatementsOptions, statementsOf } from '../db/statements.js';

const forks = new WeakMap<object, Em>();

/**
 * One EntityManager per request (`request.em`): its own identity map, nothing shared between
 * requests. It is forked on first use, so a request answered from prepared statements alone (a
 * show, a `304`) never pays for one. `request.statements()` gives the prepared-statement runner of
 * the same connection (db/statements.ts), unnamed behind a pooler in transaction mode.
 */
export function registerEntityManager(app: FastifyInstance, orm: Orm, options: StatementsOptions = {}): void {
  app.decorateRequest('em', {
    getter() {
      let em = forks.get(this);
      if (!em) {
        em = orm.em.fork();
        forks.set(this, em);
      }
      return em;
    },
  });
  const unnamed: StatementsOptions = {
    ...options,
    onUnnamed: (error) => {
      app.log.warn(
        { err: error, hint: POOLER_HINT },
        'a named statement met a pooler in transaction mode: unnamed statements from now on',
      );
      options.onUnnamed?.(error);
    },
  };
  const statements = (): Promise<Statements> => statementsOf(orm, unnamed);
  app.decorateRequest('statements', { getter: () => statements });
}
