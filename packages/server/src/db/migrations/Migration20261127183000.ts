import { Migration } from '@mikro-orm/migrations';

/**
 * The size of each stored image, for an organization's limit of image bytes
 * (`MARKETPLACE_LIMIT_UPLOAD_BYTES`, common/limits.ts `checkUploadBytes`). Images stored before
 * this migration have none and count as 0 until replaced.
 */
export class Migration20261127183000 extends Migration {
  override name = 'Migration20261127183000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "organizations" add column "logo_bytes" int null;`);
    this.addSql(`alter table "collabs" add column "banner_image_bytes" int null;`);
    this.addSql(`alter table "campaigns" add column "banner_image_bytes" int null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "campaigns" drop column "banner_image_bytes";`);
    this.addSql(`alter table "collabs" drop column "banner_image_bytes";`);
    this.addSql(`alter table "organizations" drop column "logo_bytes";`);
  }
}
