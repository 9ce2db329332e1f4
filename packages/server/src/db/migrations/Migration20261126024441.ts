import { Migration } from '@mikro-orm/migrations';

/**
 * `idempotency_keys`: the `Idempotency-Key` of each `POST` (decisions.md §6), one row per user and
 * key (the unique constraint is what holds across replicas), with the answer to replay.
 */
export class Migration20261126024441 extends Migration {
  override name = 'Migration20261126024441';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "idempotency_keys" ("id" varchar(16) not null, "user_id" varchar(16) not null, "key" varchar(255) not null, "fingerprint" varchar(64) not null, "created_at" timestamptz(3) not null, "status" int null, "headers" text null, "body" text null, primary key ("id"));`,
    );
    this.addSql(`create index "idempotency_keys_created_at_index" on "idempotency_keys" ("created_at");`);
    this.addSql(
      `alter table "idempotency_keys" add constraint "idempotency_keys_user_id_key_unique" unique ("user_id", "key");`,
    );

    this.addSql(
      `alter table "idempotency_keys" add constraint "idempotency_keys_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "idempotency_keys" cascade;`);
  }
}
