/**
 * Support of the reliability suite: real servers listening on loopback ports (as in production,
 * not `inject()`), each PostgreSQL test on its own database copied from the template, and a
 * database outage simulated on that database alone — the shared cluster is never stopped.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { inject } from 'vitest';
import { type AppOptions, buildApp, REQUEST_TIMEOUT_MS } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import type { Orm } from '../../src/db/database.js';
import { createUserWithToken } from '../../src/modules/users/users.service.js';
import { databaseUrlWith } from '../global-setup.js';
import { testConfig } from '../test-config.js';

export const TEST_HELPERS_KEY = 'reliability-helpers-key-0123456789';

/** A PostgreSQL database of one test, copied from the template that has the schema. */
export interface TestDatabase {
  name: string;
  url: string;
  /** Like the database server going away: sessions cut, new connections refused. */
  stop(): Promise<void>;
  /** The database accepts connections again. */
  start(): Promise<void>;
  /** Cuts the database's sessions without refusing new ones (a failover, a restarted server). */
  killSessions(): Promise<number>;
  /** Runs SQL through a connection of its own (outside the servers' pools). */
  sql<T = Record<string, unknown>>(query: string, params?: unknown[]): Promise<T[]>;
  /** A dedicated connection (to hold a lock, for instance); ended by `drop()`. */
  connect(): Promise<pg.Client>;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const { url: clusterUrl, template } = inject('postgres');
  const name = `mkt_rel_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: clusterUrl });
  await admin.connect();
  await admin.query(`create database ${name} template ${template}`);
  const url = databaseUrlWith(clusterUrl, name);
  const clients: pg.Client[] = [];
  const killSessions = async () => {
    const rows = await admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [name],
    );
    return rows.rowCount ?? 0;
  };
  return {
    name,
    url,
    async stop() {
      await admin.query(`alter database ${name} allow_connections false`);
      await killSessions();
    },
    async start() {
      await admin.query(`alter database ${name} allow_connections true`);
    },
    killSessions,
    async sql(query, params = []) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(query, params)).rows;
      } finally {
        await client.end();
      }
    },
    async connect() {
      const client = new pg.Client({ connectionString: url });
      // A session cut by an outage reports an error event; it must not crash the test process.
      client.on('error', () => {});
      await client.connect();
      clients.push(client);
      return client;
    },
    async drop() {
      await Promise.all(clients.map((c) => c.end().catch(() => {})));
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** One server process's worth: an app over its own ORM (its own pool), listening on a port. */
export interface Instance {
  app: FastifyInstance;
  orm: Orm;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The server's log entries of level warn and above, in order (only with `logs: true`). */
  logs: LogEntry[];
  close(): Promise<void>;
}

/** One line of the server's JSON log (pino), as far as the tests read it. */
export interface LogEntry {
  level: number;
  msg: string;
  reqId?: string;
  err?: { type?: string; message?: string; code?: string };
  /** What the operator may have missed (an unhandled error's line may carry one). */
  hint?: string;
}

/**
 * Builds the app over an opened ORM and listens on a free loopback port; `config` overrides
 * settings; `logs` keeps the server's warnings and errors in `Instance.logs`.
 */
export async function listen(
  orm: Orm,
  {
    config,
    logs: keepLogs = false,
    ...options
  }: Pick<AppOptions, 'overload' | 'requestTimeout'> & { config?: Partial<Config>; logs?: boolean } = {},
): Promise<Instance> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mkt-rel-app-'));
  const logs: LogEntry[] = [];
  const app = await buildApp({
    config: testConfig(dataDir, TEST_HELPERS_KEY, config),
    orm,
    logger: keepLogs
      ? { level: 'warn', stream: { write: (line: string) => void logs.push(JSON.parse(line) as LogEntry) } }
      : false,
    overload: { maxEventLoopDelay: 0 },
    ...options,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    app,
    orm,
    url: `http://127.0.0.1:${port}`,
    logs,
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestUser {
  user: { id: string; name: string; email: string };
  token: string;
  tokenId: string;
}

let users = 0;
export async function createUser(orm: Orm, permission: 'read' | 'write' = 'write'): Promise<TestUser> {
  users += 1;
  const created = await createUserWithToken(
    orm.em.fork(),
    { name: `User ${users}`, email: `rel${users}-${randomBytes(3).toString('hex')}@example.com` },
    { permission },
  );
  return { user: created.user, token: created.access_token.token, tokenId: created.access_token.id };
}

/**
 * How long {@link send} waits for a whole answer: twice the server's request timeout, so that a
 * server keeping its bound always answers first. A request still unanswered then hangs.
 */
export const CLIENT_TIMEOUT_MS = 2 * REQUEST_TIMEOUT_MS;

/** The status of an {@link Answer} that did not arrive within {@link CLIENT_TIMEOUT_MS}. */
export const NO_ANSWER = 0;

export interface Answer {
  /** The HTTP status, or {@link NO_ANSWER}. */
  status: number;
  headers: Headers;
  text: string;
  /** Milliseconds from sending the request to the end of the response (printed, never asserted). */
  ms: number;
  json<T = unknown>(): T;
}

/**
 * One HTTP request over loopback; `token` is a user's token or the test-helpers key. A request
 * not answered whole within {@link CLIENT_TIMEOUT_MS} is given up: its status is {@link NO_ANSWER}.
 */
export async function send(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const started = performance.now();
  const signal = AbortSignal.timeout(CLIENT_TIMEOUT_MS);
  try {
    const response = await fetch(base + path, {
      method,
      headers,
      signal,
      ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      text,
      ms: performance.now() - started,
      json: <T>() => JSON.parse(text) as T,
    };
  } catch (error) {
    if (!signal.aborted) throw error;
    return {
      status: NO_ANSWER,
      headers: new Headers(),
      text: '',
      ms: performance.now() - started,
      json: () => {
        throw new Error(`no answer to ${method} ${path} within ${CLIENT_TIMEOUT_MS} ms`);
      },
    };
  }
}

/** Value at the given percentile (0–100) of the numbers, by nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}
