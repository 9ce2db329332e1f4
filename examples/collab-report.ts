/**
 * An agent's report: every collab of every organization the token can see, with its state and
 * progress, and a summary per organization.
 *
 *   MARKETPLACE_BASE_URL=http://127.0.0.1:3000 MARKETPLACE_TOKEN=mkt_… pnpm --filter examples run collab-report
 *
 * Shows: auto-pagination (`for await` over every page, the collab pages prefetched in parallel),
 * and typed errors (a refused token, an organization that disappears mid-run, an unreachable server).
 */
import {
  APIConnectionError,
  AuthenticationError,
  type CollabSummary,
  Marketplace,
  MarketplaceError,
  NotFoundError,
  type OrganizationId,
} from '@app/sdk';

function env(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`Set ${name} (see examples/README.md).`);
    process.exit(2);
  }
  return value;
}

const client = new Marketplace({ token: env('MARKETPLACE_TOKEN'), baseUrl: env('MARKETPLACE_BASE_URL') });

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The collabs of one organization, or null when it is no longer visible to us. */
async function collabsOf(orgId: OrganizationId): Promise<CollabSummary[] | null> {
  try {
    // Every page, fetched up to 3 at a time, still in order (newest first).
    return await client.collabs.list(orgId, {}, { concurrency: 3 }).toArray();
  } catch (error) {
    // Deleted, or we were removed from it, since it was listed: skip it rather than fail the report.
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

try {
  console.log(`Collab report for ${env('MARKETPLACE_BASE_URL')}`);
  let organizations = 0;
  let total = 0;
  for await (const org of client.organizations.list()) {
    organizations += 1;
    console.log(`\nOrganization: ${org.name} (${org.id})`);
    const collabs = await collabsOf(org.id);
    if (collabs === null) {
      console.log('  no longer visible: skipped');
      continue;
    }
    const byState = new Map<string, number>();
    for (const collab of collabs) {
      byState.set(collab.state, (byState.get(collab.state) ?? 0) + 1);
      console.log(
        `  - ${collab.name} [${collab.state}] submissions: ${collab.submissions_count}, completed: ${collab.completed_count}`,
      );
    }
    const states = [...byState].map(([state, n]) => `${n} ${state}`).join(', ');
    console.log(`  ${plural(collabs.length, 'collab')}${states ? `: ${states}` : ''}`);
    total += collabs.length;
  }
  console.log(`\nReport: ${plural(total, 'collab')} in ${plural(organizations, 'organization')}`);
} catch (error) {
  process.exitCode = 1;
  if (error instanceof AuthenticationError)
    console.error('The token was refused (mistyped or revoked): create a new one and set MARKETPLACE_TOKEN.');
  else if (error instanceof APIConnectionError)
    console.error(`Cannot reach ${env('MARKETPLACE_BASE_URL')}: is the server running? (${error.message})`);
  else if (error instanceof MarketplaceError) console.error(`The API refused the report: ${error.message}`);
  else throw error;
}
