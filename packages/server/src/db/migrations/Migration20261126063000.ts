import { Migration } from '@mikro-orm/migrations';

/**
 * Pages that cost the same at any size (issue #27, item 4; db/pages.ts):
 *
 * - `row_counts`: the number of rows of each list per owner (an organization's collabs, campaigns
 *   and members; a user's notifications less the submission-message kinds), kept by a row
 *   trigger on each listed table (declared on its entity with `countedBy`) in the transaction
 *   that inserts or deletes the rows, and filled here from the rows that exist;
 * - indexes in each list's order, ending with `id` (the tie-breaker), so a page's ids are read
 *   from one index and its offset skips index entries, not rows.
 */
export class Migration20261126063000 extends Migration {
  override name = 'Migration20261126063000';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "row_counts" ("list" varchar(40) not null, "owner_id" varchar(16) not null, "count" int not null, primary key ("list", "owner_id"));`,
    );
    this.addSql(`drop index "collabs_organization_id_created_at_index";`);
    this.addSql(
      `create index "collabs_organization_id_created_at_id_index" on "collabs" ("organization_id", "created_at", "id");`,
    );
    this.addSql(
      `create or replace function "collabs_collabs_count_fn"() returns trigger as $$ begin if TG_OP = 'INSERT' then insert into row_counts (list, owner_id, count) values ('collabs', new.organization_id, 1) on conflict (list, owner_id) do update set count = row_counts.count + 1; return new; end if; update row_counts set count = count - 1 where list = 'collabs' and owner_id = old.organization_id; delete from row_counts where list = 'collabs' and owner_id = old.organization_id and count = 0; return old; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "collabs_count" AFTER INSERT OR DELETE on "collabs" for each ROW execute function "collabs_collabs_count_fn"();`,
    );
    this.addSql(
      `insert into row_counts (list, owner_id, count) select 'collabs', organization_id, count(*) from collabs group by organization_id;`,
    );
    this.addSql(`drop index "campaigns_organization_id_created_at_index";`);
    this.addSql(
      `create index "campaigns_organization_id_created_at_id_index" on "campaigns" ("organization_id", "created_at", "id");`,
    );
    this.addSql(
      `create or replace function "campaigns_campaigns_count_fn"() returns trigger as $$ begin if TG_OP = 'INSERT' then insert into row_counts (list, owner_id, count) values ('campaigns', new.organization_id, 1) on conflict (list, owner_id) do update set count = row_counts.count + 1; return new; end if; update row_counts set count = count - 1 where list = 'campaigns' and owner_id = old.organization_id; delete from row_counts where list = 'campaigns' and owner_id = old.organization_id and count = 0; return old; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "campaigns_count" AFTER INSERT OR DELETE on "campaigns" for each ROW execute function "campaigns_campaigns_count_fn"();`,
    );
    this.addSql(
      `insert into row_counts (list, owner_id, count) select 'campaigns', organization_id, count(*) from campaigns group by organization_id;`,
    );
    this.addSql(`drop index "notifications_recipient_id_created_at_index";`);
    this.addSql(
      `create index "notifications_recipient_id_created_at_id_type_index" on "notifications" ("recipient_id", "created_at", "id", "type");`,
    );
    this.addSql(
      `create or replace function "notifications_notifications_count_fn"() returns trigger as $$ begin if TG_OP = 'INSERT' then if new.type not like 'Submission::Message%' then insert into row_counts (list, owner_id, count) values ('notifications', new.recipient_id, 1) on conflict (list, owner_id) do update set count = row_counts.count + 1; end if; return new; end if; if old.type not like 'Submission::Message%' then update row_counts set count = count - 1 where list = 'notifications' and owner_id = old.recipient_id; delete from row_counts where list = 'notifications' and owner_id = old.recipient_id and count = 0; end if; return old; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "notifications_count" AFTER INSERT OR DELETE on "notifications" for each ROW execute function "notifications_notifications_count_fn"();`,
    );
    this.addSql(
      `insert into row_counts (list, owner_id, count) select 'notifications', recipient_id, count(*) from notifications where type not like 'Submission::Message%' group by recipient_id;`,
    );
    this.addSql(
      `create index "memberships_organization_id_role_created_at_id_index" on "memberships" ("organization_id", "role", "created_at", "id");`,
    );
    this.addSql(
      `create or replace function "memberships_members_count_fn"() returns trigger as $$ begin if TG_OP = 'INSERT' then insert into row_counts (list, owner_id, count) values ('members', new.organization_id, 1) on conflict (list, owner_id) do update set count = row_counts.count + 1; return new; end if; update row_counts set count = count - 1 where list = 'members' and owner_id = old.organization_id; delete from row_counts where list = 'members' and owner_id = old.organization_id and count = 0; return old; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "members_count" AFTER INSERT OR DELETE on "memberships" for each ROW execute function "memberships_members_count_fn"();`,
    );
    this.addSql(
      `insert into row_counts (list, owner_id, count) select 'members', organization_id, count(*) from memberships group by organization_id;`,
    );
  }

  override down(): void | Promise<void> {
    for (const [table, trigger] of [
      ['collabs', 'collabs_count'],
      ['campaigns', 'campaigns_count'],
      ['notifications', 'notifications_count'],
      ['memberships', 'members_count'],
    ])
      this.addSql(
        `drop trigger if exists "${trigger}" on "${table}"; drop function if exists "${table}_${trigger}_fn"();`,
      );
    this.addSql(`drop table if exists "row_counts";`);
    this.addSql(`drop index "memberships_organization_id_role_created_at_id_index";`);
    this.addSql(`drop index "notifications_recipient_id_created_at_id_type_index";`);
    this.addSql(
      `create index "notifications_recipient_id_created_at_index" on "notifications" ("recipient_id", "created_at");`,
    );
    this.addSql(`drop index "campaigns_organization_id_created_at_id_index";`);
    this.addSql(
      `create index "campaigns_organization_id_created_at_index" on "campaigns" ("organization_id", "created_at");`,
    );
    this.addSql(`drop index "collabs_organization_id_created_at_id_index";`);
    this.addSql(
      `create index "collabs_organization_id_created_at_index" on "collabs" ("organization_id", "created_at");`,
    );
  }
}
