/**
 * The user's own social accounts and access tokens: connect an account, list them, create a
 * read-only token for a reporting job, check what it may do, revoke it, and tidy up.
 *
 *   MARKETPLACE_BASE_URL=http://127.0.0.1:3000 MARKETPLACE_TOKEN=mkt_… pnpm --filter examples run my-accounts
 *
 * Shows: the `client.me` resources, a second client with another token, and the typed errors of a
 * read token writing (401), a revoked token (401) and a duplicate account (422).
 */
import { randomBytes } from 'node:crypto';
import { AuthenticationError, Marketplace, MarketplaceError, ValidationError } from '@app/sdk';

function env(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`Set ${name} (see examples/README.md).`);
    process.exit(2);
  }
  return value;
}

const baseUrl = env('MARKETPLACE_BASE_URL');
const client = new Marketplace({ token: env('MARKETPLACE_TOKEN'), baseUrl });

try {
  // Account URLs are unique across the marketplace: a fresh handle keeps the script re-runnable.
  const handle = `sdk-example-${randomBytes(3).toString('hex')}`;
  const account = await client.me.socialAccounts.create({
    platform_id: 'youtube',
    account_url: `https://www.youtube.com/@${handle}`,
  });
  console.log(
    `Connected ${account.platform_id} account ${account.uid} (${account.id}), status ${account.status}`,
  );

  try {
    await client.me.socialAccounts.create({ platform_id: 'youtube', account_url: account.account_url });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    console.log(`Connecting it twice is refused: ${JSON.stringify(error.errors)}`);
  }

  console.log('Social accounts:');
  for await (const a of client.me.socialAccounts.list())
    console.log(
      `  - ${a.platform_id} ${a.account_url} [${a.status}] subscribers: ${a.subscriber_count ?? 'not synced yet'}`,
    );

  const created = await client.me.accessTokens.create({
    description: 'Nightly report (read-only)',
    permission: 'read',
  });
  console.log(`Created read token ${created.id} (its value is shown only once: store it now)`);

  console.log('Access tokens:');
  for await (const t of client.me.accessTokens.list())
    console.log(`  - ${t.id} ${t.permission} "${t.description}" last used: ${t.last_used_at ?? 'never'}`);

  const reader = new Marketplace({ token: created.token, baseUrl });
  const seen = await reader.me.socialAccounts.list();
  console.log(`The read token reads: ${seen.totalCount} social account(s)`);
  try {
    await reader.me.socialAccounts.delete(account.id);
  } catch (error) {
    if (!(error instanceof AuthenticationError)) throw error;
    console.log(`The read token cannot write: ${error.status}`);
  }

  await client.me.accessTokens.delete(created.id);
  console.log(`Revoked token ${created.id}`);
  try {
    await reader.me.socialAccounts.list();
  } catch (error) {
    if (!(error instanceof AuthenticationError)) throw error;
    console.log(`The revoked token is refused: ${error.status}`);
  }

  await client.me.socialAccounts.delete(account.id);
  console.log(`Disconnected ${account.uid}`);
} catch (error) {
  process.exitCode = 1;
  if (error instanceof MarketplaceError) console.error(`Failed: ${error.name}: ${error.message}`);
  else throw error;
}
