/**
 * Prepares one migrated database that every test file copies: a PGlite data-directory snapshot
 * (booting from it takes ~0.5 s instead of 4–7 s for a fresh instance), or, when
 * TEST_DATABASE_URL is set, a PostgreSQL template database. On PGlite, also a snapshot of the
 * database before any schema, for the tests of migrations.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { type Orm, openDatabase } from '../src/db/database.js';

/**
 * Tests build the schema from the entities; `migrations.test.ts` proves that the committed
 * migrations produce exactly that schema.
 */
async function createSchema(orm: Orm) {
  await orm.schema.create();
}

declare module 'vitest' {
  export interface ProvidedContext {
    database:
      | { kind: 'pglite'; snapshot: string; empty: string }
      | { kind: 'postgres'; url: string; template: string };
  }
}

export function databaseUrlWith(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

type Database = ReturnType<TestProject['getProvidedContext']>['database'];

/**
 * The database set-up, made once per vitest process: the server's two projects (`server` and
 * `server-isolated`) run this file each, in module graphs of their own, and making the snapshot
 * twice kept the run's start (when no test runs yet) seconds longer. Torn down after the last one.
 */
interface Shared {
  database: Promise<{ database: Database; teardown: () => Promise<void> | void }>;
  users: number;
}
const sharedKey = Symbol.for('app.server.test.database');
const processWide = globalThis as { [sharedKey]?: Shared };

export default async function setup(project: TestProject) {
  processWide[sharedKey] ??= { database: makeDatabase(), users: 0 };
  const shared = processWide[sharedKey];
  shared.users += 1;
  const { database, teardown } = await shared.database;
  project.provide('database', database);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete processWide[sharedKey];
    await teardown();
  };
}

async function makeDatabase(): Promise<{ database: Database; teardown: () => Promise<void> | void }> {
  const dir = mkdtempSync(join(tmpdir(), 'mkt-test-'));
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const template = `mkt_template_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create database ${template}`);
    const orm = await openDatabase({ url: databaseUrlWith(url, template), dataDir: dir });
    await createSchema(orm);
    await orm.close(true);
    return {
      database: { kind: 'postgres', url, template },
      teardown: async () => {
        await admin.query(`drop database if exists ${template} with (force)`);
        await admin.end();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const pglite = await PGlite.create();
  // The same instance before any schema: the tests of migrations boot from it (openEmptyDatabase).
  const empty = join(dir, 'pglite-empty.tar');
  writeFileSync(empty, Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()));
  const orm = await openDatabase({ url: undefined, dataDir: dir, pglite });
  await createSchema(orm);
  await orm.close(true);
  const snapshot = join(dir, 'pglite.tar');
  writeFileSync(snapshot, Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()));
  await pglite.close();
  return {
    database: { kind: 'pglite', snapshot, empty },
    teardown: () => rmSync(dir, { recursive: true, force: true }),
  };
}
