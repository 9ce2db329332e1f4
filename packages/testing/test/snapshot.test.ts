/**
 * The kit's migrated snapshot: made on first use into a cache directory (never by the build),
 * written whole or not at all, and what later processes boot from.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrations, migrationsHash } from '@app/server';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cacheDir, writeAtomically } from '../src/snapshot.js';

const dir = mkdtempSync(join(tmpdir(), 'kit-cache-test-'));
// The snapshot is PGlite's: these servers run on it also when the run puts the kit on PostgreSQL.
const onPglite = { databaseUrl: 'pglite://memory' };
const cached = () => readdirSync(dir);

/** The kit loaded afresh (a new process's view: nothing read or made yet), on this cache folder. */
async function freshKit() {
  vi.resetModules();
  return import('@app/testing');
}

beforeAll(() => {
  vi.stubEnv('MARKETPLACE_TEST_CACHE_DIR', dir);
});

afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

describe('cacheDir()', () => {
  it('is MARKETPLACE_TEST_CACHE_DIR when set', () => {
    expect(cacheDir({ MARKETPLACE_TEST_CACHE_DIR: '/somewhere' }, '/tmp')).toBe('/somewhere');
  });

  it('is node_modules/.cache/app-testing of the nearest node_modules above the working directory', () => {
    const project = mkdtempSync(join(tmpdir(), 'kit-project-'));
    try {
      const nested = join(project, 'packages', 'app');
      for (const sub of ['node_modules', 'packages/app']) mkdirSync(join(project, sub), { recursive: true });
      expect(cacheDir({}, nested)).toBe(join(project, 'node_modules', '.cache', 'app-testing'));
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});

describe('writeAtomically()', () => {
  it('replaces the file whole and leaves no temporary file behind', () => {
    const file = join(dir, 'atomic', 'dump.tar');
    writeAtomically(file, new Uint8Array([1, 2, 3]));
    writeAtomically(file, new Uint8Array([4, 5]));
    expect([...readFileSync(file)]).toEqual([4, 5]);
    expect(readdirSync(join(dir, 'atomic'))).toEqual(['dump.tar']);
    rmSync(join(dir, 'atomic'), { recursive: true });
  });
});

describe('the snapshot cache', () => {
  it('the first start of a process makes the snapshot and caches it: one whole file', async () => {
    const { startTestServer } = await freshKit();
    const server = await startTestServer(onPglite);
    try {
      const n = migrations.length;
      expect(await server.sql('select count(*)::int as n from mikro_orm_migrations')).toEqual([{ n }]);
    } finally {
      await server.close();
    }
    expect(cached()).toEqual([expect.stringMatching(/^pglite-[0-9a-f]{16}\.tar$/)]);
  });

  it('a later process boots from the cached file', async () => {
    // Mark the cached database, so that a server booted from it shows the mark.
    const [name] = cached();
    const file = join(dir, name as string);
    const pglite = await PGlite.create({ loadDataDir: new Blob([readFileSync(file)]) });
    await pglite.exec("insert into mikro_orm_migrations (name) values ('mark of the cached file')");
    writeFileSync(file, new Uint8Array(await (await pglite.dumpDataDir('none')).arrayBuffer()));
    await pglite.close();

    const { startTestServer } = await freshKit();
    const server = await startTestServer(onPglite);
    try {
      expect(await server.sql("select name from mikro_orm_migrations where name like 'mark%'")).toEqual([
        { name: 'mark of the cached file' },
      ]);
    } finally {
      await server.close();
    }
  });

  it('a damaged cached file is made again', async () => {
    const [name] = cached();
    const file = join(dir, name as string);
    writeFileSync(file, 'not a tar file');
    const { startTestServer } = await freshKit();
    const server = await startTestServer(onPglite);
    try {
      const client = server.client(await server.createUser());
      await expect(client.organizations.create({ name: 'Acme' })).resolves.toMatchObject({ name: 'Acme' });
      expect(await server.sql("select name from mikro_orm_migrations where name like 'mark%'")).toEqual([]);
    } finally {
      await server.close();
    }
    expect(cached()).toEqual([name]);
    expect(readFileSync(file).byteLength).toBeGreaterThan(1_000_000);
  });
});

describe('the name of the migrations (migrationsHash)', () => {
  // The snapshot's file and the PostgreSQL template are named after it. It was a hash of each
  // migration class's compiled code, which differs between Vite (this runner) and tsx: on one
  // PostgreSQL server, a kit run from tsx (process-exit.test.ts) and one run here each made a
  // template of their own and dropped the other's as an old schema, and postgres.test.ts then
  // failed with 'database "mkt_kit_tpl_…" does not exist'.
  it('is the same from the source in the test runner and in tsx (and the build: server cli.test.ts)', () => {
    // The server's module that computes it, alone: all of the server through tsx takes seconds.
    const module = fileURLToPath(new URL('../../server/src/db/migrations/hash.ts', import.meta.url));
    const script = `const { migrationsHash } = await import(${JSON.stringify(module)});
process.stdout.write(migrationsHash());`;
    const fromTsx = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(fromTsx).toMatch(/^[0-9a-f]{16}$/);
    expect(fromTsx).toBe(migrationsHash());
  });
});
