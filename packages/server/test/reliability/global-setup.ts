/**
 * The reliability suite needs a real PostgreSQL (outages, two instances on one database, a
 * connection pool): TEST_DATABASE_URL, or the local cluster at postgres://postgres@127.0.0.1:5432/test
 * when it is unset. No PostgreSQL is a failure with a message, never a silent skip.
 *
 * Prepares one template database with the schema; every test copies it (`CREATE DATABASE …
 * TEMPLATE`), so an outage of one test's database never touches another's, nor the shared cluster.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/database.js';
import { databaseUrlWith } from '../global-setup.js';

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: { url: string; template: string };
  }
}

export default async function setup(project: TestProject) {
  const url = process.env.TEST_DATABASE_URL || DEFAULT_DATABASE_URL;
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `The reliability suite needs PostgreSQL at ${url} (set TEST_DATABASE_URL, or start the local ` +
        `cluster, e.g. \`pg_ctlcluster <version> main start\`): ${(error as Error).message}`,
    );
  }
  const template = `mkt_rel_template_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${template}`);
  const dir = mkdtempSync(join(tmpdir(), 'mkt-rel-'));
  const orm = await openDatabase({ url: databaseUrlWith(url, template), dataDir: dir });
  await orm.schema.create();
  await orm.close(true);
  project.provide('postgres', { url, template });
  return async () => {
    await admin.query(`drop database if exists ${template} with (force)`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  };
}
