import { Migration } from '@mikro-orm/migrations';

/**
 * Pages cached until their list changes (pipeline/page-cache.ts): `row_counts.version`, the id of
 * the last transaction that inserted, updated or deleted a row of a versioned list (an
 * organization's collabs and campaigns), kept by the lists' triggers (db/pages.ts `countedBy`).
 * The counts that exist take this migration's transaction as their version.
 */
export class Migration20261126113758 extends Migration {
  override name = 'Migration20261126113758';

  override up(): void | Promise<void> {
    this.addSql(`drop trigger if exists "collabs_count" on "collabs";`);
    this.addSql(`drop function if exists "collabs_collabs_count_fn"();`);
    this.addSql(
      `create or replace function "collabs_collabs_count_fn"() returns trigger as $$ begin if TG_OP = 'INSERT' then insert into row_counts (list, owner_id, count, version) values ('collabs', new.organization_id, 1, pg_current_xact_id()::text::bigint) on conflict (list, owner_id) do update set count = row_counts.count + 1, version = excluded.version; return new; end if; if TG_OP = 'UPDATE' then update row_counts set version = pg_current_xact_id()::text::bigint where list = 'collabs' and owner_id = new.organization_id and version is distinct from pg_current_xact_id()::text::bigint; return new; end if; update row_counts set count = count - 1, version = pg_current_xact_id()::text::bigint where list = 'collabs' and owner_id = old.organization_id; delete from row_counts where list = 'collabs' and owner_id = old.organization_id and count = 0; return old; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "collabs_count" AFTER INSERT OR UPDATE OR DELETE on "collabs" for each ROW execute function "collabs_collabs_count_fn"();`,
    );

    this.addSql(`drop trigger if exists "campaigns_count" on "campaigns";`);
    this.addSql(`drop function if exists "campaigns_campaigns_count_fn"();`);
    this.addSql(
      `create or replace function "campaigns_campaigns_count_fn"() returns trigger as $$ begin if TG_OP = 'INSERT' then insert into row_counts (list, owner_id, count, version) values ('campaigns', new.organization_id, 1, pg_current_xact_id()::text::bigint) on conflict (list, owner_id) do update set count = row_counts.count + 1, version = excluded.version; return new; end if; if TG_OP = 'UPDATE' then update row_counts set version = pg_current_xact_id()::text::bigint where list = 'campaigns' and owner_id = new.organization_id and version is distinct from pg_current_xact_id()::text::bigint; return new; end if; update row_counts set count = count - 1, version = pg_current_xact_id()::text::bigint where list = 'campaigns' and owner_id = old.organization_id; delete from row_counts where list = 'campaigns' and owner_id = old.organization_id and count = 0; return old; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "campaigns_count" AFTER INSERT OR UPDATE OR DELETE on "campaigns" for each ROW execute function "campaigns_campaigns_count_fn"();`,
    );

    this.addSql(`alter table "row_counts" add "version" bigint null;`);
    this.addSql(
      `update row_counts set version = pg_current_xact_id()::text::bigint where list in ('collabs', 'campaigns');`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "campaigns_count" on "campaigns";`);
    this.addSql(`drop function if exists "campaigns_campaigns_count_fn"();`);
    this.addSql(
      `create or replace function "campaigns_campaigns_count_fn"() returns trigger as $$ begin if TG_OP = 'INSERT' then insert into row_counts (list, owner_id, count) values ('campaigns', new.organization_id, 1) on conflict (list, owner_id) do update set count = row_counts.count + 1; return new; end if; update row_counts set count = count - 1 where list = 'campaigns' and owner_id = old.organization_id; delete from row_counts where list = 'campaigns' and owner_id = old.organization_id and count = 0; return old; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "campaigns_count" AFTER DELETE OR INSERT on "campaigns" for each ROW execute function "campaigns_campaigns_count_fn"();`,
    );

    this.addSql(`drop trigger if exists "collabs_count" on "collabs";`);
    this.addSql(`drop function if exists "collabs_collabs_count_fn"();`);
    this.addSql(
      `create or replace function "collabs_collabs_count_fn"() returns trigger as $$ begin if TG_OP = 'INSERT' then insert into row_counts (list, owner_id, count) values ('collabs', new.organization_id, 1) on conflict (list, owner_id) do update set count = row_counts.count + 1; return new; end if; update row_counts set count = count - 1 where list = 'collabs' and owner_id = old.organization_id; delete from row_counts where list = 'collabs' and owner_id = old.organization_id and count = 0; return old; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "collabs_count" AFTER DELETE OR INSERT on "collabs" for each ROW execute function "collabs_collabs_count_fn"();`,
    );

    this.addSql(`alter table "row_counts" drop column "version";`);
  }
}
