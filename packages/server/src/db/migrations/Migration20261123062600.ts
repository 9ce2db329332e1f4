import { Migration } from '@mikro-orm/migrations';

export class Migration20261123062600 extends Migration {
  override name = 'Migration20261123062600';

  override up(): void | Promise<void> {
    this.addSql(`alter table "collabs" add "brief_html" text null;`);

    this.addSql(`alter table "campaigns" add "brief_html" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "campaigns" drop column "brief_html";`);

    this.addSql(`alter table "collabs" drop column "brief_html";`);
  }
}
