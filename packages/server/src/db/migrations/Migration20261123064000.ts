import { Migration } from '@mikro-orm/migrations';

/**
 * Social accounts stored before account URLs were normalised on the decoded path, with
 * case-insensitive handles folded and alias hosts as one (`twitter.com` → `x.com`): each URL is
 * rewritten to its normalised form, so the unique index on `account_url` holds one identity per
 * account. Where two stored rows turn out to be one account, the oldest keeps it; the others are
 * marked `failed` and keep the URL they had (made unique with `#duplicate-<id>` if it is the
 * normalised one), so no one's data is deleted.
 */
export class Migration20261123064000 extends Migration {
  override name = 'Migration20261123064000';

  override async up(): Promise<void> {
    // Loaded here, not at the top: the test set-up loads the migration list outside the
    // workspace's source resolution, and only this migration needs the contract.
    const { parseAccountUrl } = await import('@app/schemas');
    const rows = (await this.execute(
      'select id, platform_id, account_url from social_accounts order by created_at, id',
    )) as { id: string; platform_id: string; account_url: string }[];
    const owner = new Map<string, string>();
    const updates: { id: string; url: string; uid?: string; failed: boolean }[] = [];
    for (const row of rows) {
      const parsed = parseAccountUrl(row.platform_id, row.account_url);
      if (!parsed.ok) continue;
      if (!owner.has(parsed.accountUrl)) {
        owner.set(parsed.accountUrl, row.id);
        if (parsed.accountUrl !== row.account_url)
          updates.push({ id: row.id, url: parsed.accountUrl, uid: parsed.uid, failed: false });
      } else {
        updates.push({ id: row.id, url: row.account_url, failed: true });
      }
    }
    // Out of the way first, so that no rewrite meets a URL another row still holds.
    for (const u of updates)
      await this.execute('update social_accounts set account_url = ? where id = ?', [
        `#migrating-${u.id}`,
        u.id,
      ]);
    for (const u of updates) {
      const url = u.failed && owner.has(u.url) ? `${u.url}#duplicate-${u.id}` : u.url;
      if (u.failed)
        await this.execute(`update social_accounts set account_url = ?, status = 'failed' where id = ?`, [
          url,
          u.id,
        ]);
      else
        await this.execute('update social_accounts set account_url = ?, uid = ? where id = ?', [
          url,
          u.uid,
          u.id,
        ]);
    }
  }

  override down(): void {
    // The old spellings are not kept: nothing to undo.
  }
}
