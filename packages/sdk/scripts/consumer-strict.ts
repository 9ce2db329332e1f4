/**
 * The README's examples as a consumer with the strictest options writes them: `check:package`
 * type-checks this file against the packed tarball's declarations with `strict`,
 * `exactOptionalPropertyTypes`, `noUncheckedIndexedAccess` and no `skipLibCheck`. Nothing here
 * runs: an option fed from an environment variable (`string | undefined`) must type-check.
 */
import {
  type CollabCreateParams,
  LruCache,
  Marketplace,
  NotFoundError,
  OrganizationId,
  RequestValidationError,
} from '@app/sdk';

export async function readmeExamples(): Promise<void> {
  const client = new Marketplace({
    token: process.env.MARKETPLACE_TOKEN,
    baseUrl: process.env.MARKETPLACE_BASE_URL,
    userAgent: process.env.APP_USER_AGENT,
    cache: new LruCache(5_000),
  });
  const id = OrganizationId.parse('Org0000000000001');

  // "Headers"
  const gateway = new Marketplace({ defaultHeaders: { 'X-Gateway-Key': process.env.GATEWAY_KEY } });
  await gateway.organizations.retrieve(id, { headers: { traceparent: process.env.TRACEPARENT } });
  await gateway.organizations.list({}, { headers: { 'X-Gateway-Key': null } });

  // "Test helpers"
  const admin = new Marketplace({ testHelpersKey: process.env.MARKETPLACE_TEST_HELPERS_KEY });
  const options = admin.withOptions({
    maxRetries: process.env.RETRIES ? Number(process.env.RETRIES) : undefined,
  });

  // Requests, responses, pages, errors
  const draft: CollabCreateParams = { name: 'Launch', countries: ['US'] };
  const collab = await client.collabs.create(
    id,
    draft,
    { website: process.env.PRODUCT_PAGE },
    { idempotencyKey: process.env.RUN_ID },
  );
  const { data, requestId } = await client.organizations.retrieve(id).withResponse();
  for await (const org of options.organizations.list()) console.log(org.name, data.name, collab.state);
  const first = await client.organizations.list({}, { concurrency: 4, signal: AbortSignal.timeout(5_000) });
  console.log(first.totalCount, first.data[0]?.name, requestId);
  try {
    await client.organizations.retrieve(id, { cache: false, timeout: 5_000 });
  } catch (error) {
    if (error instanceof NotFoundError) console.log(error.status, error.requestId);
    else if (error instanceof RequestValidationError) console.log(error.errors);
    else throw error;
  }
}
