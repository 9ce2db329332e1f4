import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency keys are kept as their SHA-256 (idempotency.service.ts `storedKeyOf`), so that the
 * database does not hold them: the keys stored so far are hashed in place, and their answers stay
 * replayable. Their bodies stay as they were stored (readable); they expire within 24 hours, and
 * every answer stored from now on is sealed.
 */
export class Migration20261127094500 extends Migration {
  override name = 'Migration20261127094500';

  override up(): void | Promise<void> {
    this.addSql(`update "idempotency_keys" set "key" = encode(sha256(convert_to("key", 'UTF8')), 'hex');`);
  }

  override down(): void | Promise<void> {
    // A hash cannot be turned back into its key: the stored answers are forgotten.
    this.addSql(`delete from "idempotency_keys";`);
  }
}
