import { describe, expect, it } from 'vitest';
import { migrate } from '../src/db/database.js';
import { openBody, storedKeyOf } from '../src/modules/idempotency/idempotency.service.js';
import { openEmptyDatabase } from './harness.js';

describe('committed migrations', () => {
  it('build exactly the schema the entities describe', async () => {
    const { orm, close } = await openEmptyDatabase();
    try {
      expect((await migrate(orm)).length).toBeGreaterThan(0);
      expect(await migrate(orm)).toEqual([]);
      expect((await orm.schema.getUpdateSchemaSQL({ wrap: false })).trim()).toBe('');
    } finally {
      await close();
    }
  });
});

describe('migrating from two processes at once (two replicas starting on a new database)', () => {
  it('applies each migration once: one applies them, the other finds none pending, neither fails', async () => {
    const { orm, another, close } = await openEmptyDatabase();
    try {
      const second = await another();
      // Both at once from the start: the migrations table itself is made by one of them. Embedded
      // PGlite is one process (its data directory is locked): there, one after the other.
      const applied =
        second === orm
          ? [await migrate(orm), await migrate(orm)]
          : await Promise.all([migrate(orm), migrate(second)]);
      const executed = (await orm.migrator.getExecuted()).map((m) => m.name);
      expect(executed.length).toBeGreaterThan(0);
      expect(applied.flat().sort()).toEqual([...executed].sort());
      expect(applied.map((names) => names.length).sort((a, b) => a - b)).toEqual([0, executed.length]);
      expect((await orm.schema.getUpdateSchemaSQL({ wrap: false })).trim()).toBe('');
    } finally {
      await close();
    }
  });
});

describe('the social-account URL migration', () => {
  it('normalises stored URLs, keeps the oldest of one account, marks the others failed', async () => {
    const { orm, close } = await openEmptyDatabase();
    try {
      await orm.migrator.up({ to: 'Migration20261123062600' });
      const em = orm.em.fork();
      await em.execute(
        `insert into users (id, name, email, created_at, updated_at) values ('u1', 'A', 'a@x.test', now(), now())`,
      );
      const insert = (id: string, platform: string, url: string, uid: string, at: string) =>
        em.execute(
          `insert into social_accounts (id, user_id, platform_id, account_url, uid, created_at, updated_at)
           values (?, 'u1', ?, ?, ?, ?, ?)`,
          [id, platform, url, uid, at, at],
        );
      await insert('a1', 'x', 'https://twitter.com/famouscreator', 'famouscreator', '2026-01-01T00:00:00Z');
      await insert('a2', 'x', 'https://x.com/FamousCreator', 'FamousCreator', '2026-01-02T00:00:00Z');
      await insert('a3', 'x', 'https://x.com/famouscreator', 'famouscreator', '2026-01-03T00:00:00Z');
      await insert('a4', 'youtube', 'https://youtube.com/@Other', '@Other', '2026-01-04T00:00:00Z');
      await insert('a5', 'youtube', 'https://youtube.com/channel/UCaBc', 'UCaBc', '2026-01-05T00:00:00Z');
      expect(await migrate(orm)).toContain('Migration20261123064000');
      expect(await em.execute('select id, account_url, status from social_accounts order by id')).toEqual([
        { id: 'a1', account_url: 'https://x.com/famouscreator', status: 'pending' },
        { id: 'a2', account_url: 'https://x.com/FamousCreator', status: 'failed' },
        { id: 'a3', account_url: 'https://x.com/famouscreator#duplicate-a3', status: 'failed' },
        { id: 'a4', account_url: 'https://youtube.com/@other', status: 'pending' },
        { id: 'a5', account_url: 'https://youtube.com/channel/UCaBc', status: 'pending' },
      ]);
    } finally {
      await close();
    }
  });
});

describe('the platform_id check', () => {
  it('keeps the stored accounts and refuses a platform the contract does not list', async () => {
    const { orm, close } = await openEmptyDatabase();
    try {
      await orm.migrator.up({ to: 'Migration20261123064000' });
      const em = orm.em.fork();
      await em.execute(
        `insert into users (id, name, email, created_at, updated_at) values ('u1', 'A', 'a@x.test', now(), now())`,
      );
      const insert = (id: string, platform: string, url: string) =>
        em.execute(
          `insert into social_accounts (id, user_id, platform_id, account_url, uid, created_at, updated_at)
           values (?, 'u1', ?, ?, 'uid', now(), now())`,
          [id, platform, url],
        );
      await insert('a1', 'youtube', 'https://youtube.com/@one');
      await insert('a2', 'tiktok', 'https://tiktok.com/@two');
      await migrate(orm);
      await expect(insert('a3', 'myspace', 'https://myspace.com/three')).rejects.toThrow(
        /social_accounts_platform_id_check/,
      );
      expect(await em.execute('select id, platform_id from social_accounts order by id')).toEqual([
        { id: 'a1', platform_id: 'youtube' },
        { id: 'a2', platform_id: 'tiktok' },
      ]);
    } finally {
      await close();
    }
  });
});

describe('the idempotency key hash', () => {
  it('hashes the stored keys in place, so that their answers are still found, and still read as stored', async () => {
    const { orm, close } = await openEmptyDatabase();
    try {
      await orm.migrator.up({ to: 'Migration20261126113758' });
      const em = orm.em.fork();
      await em.execute(
        `insert into users (id, name, email, created_at, updated_at) values ('u1', 'A', 'a@x.test', now(), now())`,
      );
      await em.execute(
        `insert into idempotency_keys (id, user_id, "key", fingerprint, created_at, status, headers, body)
         values ('k1', 'u1', 'order-ü 1', ?, now(), 201, '{}', '{"id":"o1"}')`,
        ['f'.repeat(64)],
      );
      expect(await migrate(orm)).toContain('Migration20261127094500');
      const [row] = await em.execute<{ key: string; body: string }[]>(
        'select "key", body from idempotency_keys',
      );
      expect(row?.key).toBe(storedKeyOf('order-ü 1'));
      expect(openBody(row?.body ?? '', 'u1', 'order-ü 1')).toBe('{"id":"o1"}');
    } finally {
      await close();
    }
  });
});
