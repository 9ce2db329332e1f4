import type { Em } from '../../db/database.js';
import type { UploadStore } from '../uploads/uploads.js';

/**
 * Empties the sandbox: every table of the application's entities in one `TRUNCATE` (atomic;
 * requests running meanwhile wait for it), then every stored upload. The migrations table stays.
 */
export async function resetSandbox(em: Em, uploads: UploadStore): Promise<void> {
  const tables = [...em.getMetadata().getAll().values()]
    .filter((meta) => meta.tableName && !meta.embeddable && !meta.virtual && !meta.abstract)
    .map((meta) => `"${meta.tableName}"`);
  await em.execute(`truncate table ${[...new Set(tables)].join(', ')} restart identity cascade`);
  // Names the store made only (`list`); each removal is best effort, like every removal.
  await Promise.all((await uploads.list()).map((name) => uploads.remove(name)));
}
