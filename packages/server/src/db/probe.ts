import pg from 'pg';
import type { Orm } from './database.js';

/**
 * A `select 1` on PostgreSQL that does not answer within this time counts as a database down.
 * Short enough to notice a database that accepts connections and then hangs within a few seconds;
 * long enough that a busy but healthy one, on a connection of its own, is never taken for down.
 */
export const DATABASE_CHECK_TIMEOUT_MS = 2_000;

/** Asks whether the database answers: resolves when it does, rejects with the reason when not. */
export interface DatabaseProbe {
  ping(): Promise<void>;
  /** Closes what the probe holds open; a ping after it rejects. */
  close(): Promise<void>;
}

/**
 * The probe of the overload protection's database check (plugins/pressure.ts).
 *
 * PostgreSQL: a connection of its own, outside the pool. Through the pool, a check would wait in
 * line behind the requests, and a busy pool would be taken for a database down, which would turn
 * away every request just when there are many. One connection is kept (a `select 1` per check);
 * when it fails it is replaced and asked once more, so a connection cut on its own (an idle
 * timeout of a proxy, a terminated backend) is not taken for the database.
 *
 * PGlite: in the process, so it is down only when closed. The check asks the instance itself,
 * whose `query` waits for a transaction in progress on its one session (the ORM's connection
 * would send it into that transaction), without a timeout: a long wait there is load, never an
 * outage.
 *
 * Neither goes through the ORM's statement log: the round-trip counts of requests stay exact.
 */
export function databaseProbe(orm: Orm): DatabaseProbe {
  let probe: Promise<DatabaseProbe> | undefined;
  let closed = false;
  // Which database it is shows in the ORM's client (its clientUrl has a default even on PGlite).
  const resolve = async (): Promise<DatabaseProbe> => {
    const client: unknown = await orm.em.getConnection().getNativeClient();
    return isPgPool(client) ? new PostgresProbe(client.options) : pgliteProbe(client as Queryable);
  };
  return {
    async ping() {
      if (closed) throw new Error('Client was closed');
      probe ??= resolve();
      probe.catch(() => {
        probe = undefined;
      });
      await (await probe).ping();
    },
    async close() {
      closed = true;
      await (await probe?.catch(() => undefined))?.close();
    },
  };
}

/** The `pg` pool MikroORM's PostgreSQL driver holds: its options are a client's settings. */
interface PgPool {
  options: pg.ClientConfig;
  totalCount: number;
}

const isPgPool = (client: unknown): client is PgPool =>
  typeof (client as PgPool | null)?.totalCount === 'number' && typeof (client as PgPool).options === 'object';

/** The part of a PGlite instance the probe uses. */
interface Queryable {
  query(sql: string): Promise<unknown>;
}

function pgliteProbe(pglite: Queryable): DatabaseProbe {
  return {
    async ping() {
      await pglite.query('select 1');
    },
    async close() {},
  };
}

class PostgresProbe implements DatabaseProbe {
  #client: pg.Client | undefined;
  #closed = false;

  constructor(private readonly settings: pg.ClientConfig) {}

  async ping(): Promise<void> {
    const kept = this.#client;
    if (kept) {
      try {
        await kept.query('select 1');
        return;
      } catch {
        this.#drop(kept);
      }
    }
    const client = await this.#connect();
    try {
      await client.query('select 1');
    } catch (error) {
      this.#drop(client);
      throw error;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#client) this.#drop(this.#client);
  }

  async #connect(): Promise<pg.Client> {
    if (this.#closed) throw new Error('Client was closed');
    const client = new pg.Client({
      ...this.settings,
      connectionTimeoutMillis: DATABASE_CHECK_TIMEOUT_MS,
      query_timeout: DATABASE_CHECK_TIMEOUT_MS,
      application_name: 'marketplace-server database check',
    });
    // An idle connection the server cuts emits 'error'; unheard, it would end the process.
    client.on('error', () => this.#drop(client));
    try {
      await client.connect();
    } catch (error) {
      void client.end().catch(() => {});
      throw error;
    }
    if (this.#closed) {
      void client.end().catch(() => {});
      throw new Error('Client was closed');
    }
    this.#client = client;
    return client;
  }

  #drop(client: pg.Client): void {
    if (this.#client === client) this.#client = undefined;
    void client.end().catch(() => {});
  }
}
