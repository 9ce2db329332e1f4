import { Migration } from '@mikro-orm/migrations';

/**
 * `platform_id` checked by the database like the other enum columns (`status`, `role`, …): only
 * the platforms of the contract's `PlatformId`. Every stored row already is one: the API has only
 * ever written those.
 */
export class Migration20261124111832 extends Migration {
  override name = 'Migration20261124111832';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "social_accounts" alter column "platform_id" type text using ("platform_id"::text);`,
    );
    this.addSql(
      `alter table "social_accounts" add constraint "social_accounts_platform_id_check" check ("platform_id" in ('youtube', 'x', 'twitch', 'tiktok', 'instagram'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "social_accounts" drop constraint "social_accounts_platform_id_check";`);
    this.addSql(
      `alter table "social_accounts" alter column "platform_id" type varchar(20) using ("platform_id"::varchar(20));`,
    );
  }
}
