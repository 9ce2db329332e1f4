import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../src/db/database.js';

describe('committed migrations', () => {
  it('build exactly the schema the entities describe', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mkt-migrations-'));
    const orm = await openDatabase({ url: 'pglite://memory', dataDir: dir });
    try {
      expect((await migrate(orm)).length).toBeGreaterThan(0);
      expect(await migrate(orm)).toEqual([]);
      expect((await orm.schema.getUpdateSchemaSQL({ wrap: false })).trim()).toBe('');
    } finally {
      await orm.close(true);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
