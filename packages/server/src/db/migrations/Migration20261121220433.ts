import { Migration } from '@mikro-orm/migrations';

export class Migration20261121220433 extends Migration {
  override name = 'Migration20261121220433';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "organizations" ("id" varchar(16) not null, "name" varchar(100) not null, "privacy_setting" text not null default 'private', "website" text null, "logo" varchar(64) null, "subscription_active" boolean not null default false, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "organizations" add constraint "organizations_privacy_setting_check" check ("privacy_setting" in ('public', 'private', 'restricted'));`,
    );

    this.addSql(
      `create table "collabs" ("id" varchar(16) not null, "organization_id" varchar(16) not null, "name" varchar(200) not null, "state" text not null default 'draft', "currency" varchar(3) not null default 'usd', "countries" text[] not null default '{US}', "website" text null, "require_boosted_ads" boolean not null default false, "requires_product_shipment" boolean not null default false, "submissions_count" int not null default 0, "completed_count" int not null default 0, "brief" text not null, "banner_image" varchar(64) null, "published_at" timestamptz(3) null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "collabs_organization_id_created_at_index" on "collabs" ("organization_id", "created_at");`,
    );
    this.addSql(
      `alter table "collabs" add constraint "collabs_state_check" check ("state" in ('draft', 'submitted_for_review', 'published', 'paused'));`,
    );

    this.addSql(
      `create table "campaigns" ("id" varchar(16) not null, "organization_id" varchar(16) not null, "name" varchar(200) not null, "status" text not null default 'draft', "currency" varchar(3) not null default 'usd', "countries" text[] not null default '{US}', "website" text null, "content_type" varchar(50) not null default 'video', "category" varchar(50) not null default 'general', "platform_ids" text[] not null default '{}', "platform_music_id" varchar(200) null, "cpm_amount" bigint not null default '0', "min_payout_amount" bigint not null default '0', "max_payout_amount" bigint not null default '0', "base_reward_amount" bigint not null default '0', "total_budget_amount" bigint not null default '0', "used_amount" bigint not null default '0', "view_count" bigint not null default '0', "submissions_count" int not null default 0, "brief" text not null, "banner_image" varchar(64) null, "published_at" timestamptz(3) null, "paused_at" timestamptz(3) null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "campaigns_organization_id_created_at_index" on "campaigns" ("organization_id", "created_at");`,
    );
    this.addSql(
      `alter table "campaigns" add constraint "campaigns_status_check" check ("status" in ('draft', 'active', 'paused', 'finished'));`,
    );

    this.addSql(
      `create table "fundings" ("id" varchar(16) not null, "campaign_id" varchar(16) not null, "amount" bigint not null, "created_at" timestamptz(3) not null, primary key ("id"));`,
    );
    this.addSql(`create index "fundings_campaign_id_index" on "fundings" ("campaign_id");`);

    this.addSql(
      `create table "submissions" ("id" varchar(16) not null, "collab_id" varchar(16) not null, "created_at" timestamptz(3) not null, primary key ("id"));`,
    );
    this.addSql(`create index "submissions_collab_id_index" on "submissions" ("collab_id");`);

    this.addSql(
      `create table "users" ("id" varchar(16) not null, "name" varchar(100) not null, "email" varchar(254) not null, "push_notifications_enabled" boolean not null default true, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, primary key ("id"));`,
    );
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);

    this.addSql(
      `create table "social_accounts" ("id" varchar(16) not null, "user_id" varchar(16) not null, "platform_id" varchar(20) not null, "account_url" varchar(2048) not null, "uid" varchar(200) not null, "status" text not null default 'pending', "subscriber_count" bigint null, "view_count" bigint null, "video_count" bigint null, "likes_count" bigint null, "engagement_rate" numeric(12,4) null, "last_synced_at" timestamptz(3) null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "social_accounts" add constraint "social_accounts_account_url_unique" unique ("account_url");`,
    );
    this.addSql(
      `create index "social_accounts_user_id_created_at_index" on "social_accounts" ("user_id", "created_at");`,
    );
    this.addSql(
      `alter table "social_accounts" add constraint "social_accounts_status_check" check ("status" in ('pending', 'verified', 'failed'));`,
    );

    this.addSql(
      `create table "push_subscriptions" ("id" varchar(16) not null, "user_id" varchar(16) not null, "created_at" timestamptz(3) not null, primary key ("id"));`,
    );
    this.addSql(`create index "push_subscriptions_user_id_index" on "push_subscriptions" ("user_id");`);

    this.addSql(
      `create table "notifications" ("id" varchar(16) not null, "recipient_id" varchar(16) not null, "type" varchar(200) not null, "params" jsonb not null, "record_type" varchar(200) not null, "record_id" varchar(200) not null, "seen_at" timestamptz(3) null, "read_at" timestamptz(3) null, "created_at" timestamptz(3) not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "notifications_recipient_id_created_at_index" on "notifications" ("recipient_id", "created_at");`,
    );

    this.addSql(
      `create table "memberships" ("id" varchar(16) not null, "organization_id" varchar(16) not null, "user_id" varchar(16) not null, "role" text not null, "is_owner" boolean not null default false, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, primary key ("id"));`,
    );
    this.addSql(`create index "memberships_user_id_index" on "memberships" ("user_id");`);
    this.addSql(
      `alter table "memberships" add constraint "memberships_organization_id_user_id_unique" unique ("organization_id", "user_id");`,
    );
    this.addSql(
      `alter table "memberships" add constraint "memberships_role_check" check ("role" in ('member', 'admin'));`,
    );

    this.addSql(
      `create table "join_requests" ("id" varchar(16) not null, "organization_id" varchar(16) not null, "user_id" varchar(16) not null, "created_at" timestamptz(3) not null, primary key ("id"));`,
    );
    this.addSql(`create index "join_requests_organization_id_index" on "join_requests" ("organization_id");`);

    this.addSql(
      `create table "addresses" ("id" varchar(16) not null, "user_id" varchar(16) not null, "address_one" varchar(200) not null, "address_two" varchar(200) null, "city" varchar(200) not null, "state" varchar(200) not null, "postal_code" varchar(200) not null, "country_code" varchar(2) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, primary key ("id"));`,
    );
    this.addSql(`alter table "addresses" add constraint "addresses_user_id_unique" unique ("user_id");`);

    this.addSql(
      `create table "access_tokens" ("id" varchar(16) not null, "user_id" varchar(16) not null, "description" varchar(200) not null, "permission" text not null, "digest" varchar(64) not null, "created_at" timestamptz(3) not null, "last_used_at" timestamptz(3) null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "access_tokens" add constraint "access_tokens_digest_unique" unique ("digest");`,
    );
    this.addSql(
      `create index "access_tokens_user_id_created_at_index" on "access_tokens" ("user_id", "created_at");`,
    );
    this.addSql(
      `alter table "access_tokens" add constraint "access_tokens_permission_check" check ("permission" in ('read', 'write'));`,
    );

    this.addSql(
      `alter table "collabs" add constraint "collabs_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "campaigns" add constraint "campaigns_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "fundings" add constraint "fundings_campaign_id_foreign" foreign key ("campaign_id") references "campaigns" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "submissions" add constraint "submissions_collab_id_foreign" foreign key ("collab_id") references "collabs" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "social_accounts" add constraint "social_accounts_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "push_subscriptions" add constraint "push_subscriptions_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "notifications" add constraint "notifications_recipient_id_foreign" foreign key ("recipient_id") references "users" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "memberships" add constraint "memberships_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "memberships" add constraint "memberships_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "join_requests" add constraint "join_requests_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "join_requests" add constraint "join_requests_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "addresses" add constraint "addresses_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "access_tokens" add constraint "access_tokens_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );
  }
}
