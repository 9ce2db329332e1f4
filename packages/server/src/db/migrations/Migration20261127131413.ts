import { Migration } from '@mikro-orm/migrations';

/**
 * A user's newest `Idempotency-Key`s, read in order by every stored answer to forget that user's
 * keys past the newest `MARKETPLACE_IDEMPOTENCY_KEYS_PER_USER` (idempotency.service.ts). The table
 * holds a day of keys at most, so the index is built in the migration's transaction.
 */
export class Migration20261127131413 extends Migration {
  override name = 'Migration20261127131413';

  override up(): void | Promise<void> {
    this.addSql(
      `create index "idempotency_keys_user_id_created_at_index" on "idempotency_keys" ("user_id", "created_at");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "idempotency_keys_user_id_created_at_index";`);
  }
}
