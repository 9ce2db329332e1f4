/** The organization id the flow retrieves for its 404 (browsers log that one request). */
export const MISSING_ID = 'doesnotexist000';

/**
 * The flow every runtime runs against a real test server, with the built SDK handed in (its
 * module namespace): create organizations, list them with auto-pagination, retrieve one twice
 * (the second answer a `304` from the ETag cache) and a missing one (`NotFoundError`). Plain
 * JavaScript with no imports, so that Node, Bun, Deno, a browser and workerd run this one file.
 * Resolves to one line per step; rejects on the first step that does not hold.
 *
 * @param {typeof import('@app/sdk')} sdk
 * @param {{ baseUrl: string, token: string }} server
 * @returns {Promise<string[]>}
 */
export async function flow(sdk, { baseUrl, token }) {
  const lines = [];
  const check = (condition, message) => {
    if (!condition) throw new Error(`flow: ${message}`);
  };
  const client = new sdk.Marketplace({ token, baseUrl, maxRetries: 0 });

  // One more than a page (20), so that the list needs a second page.
  const count = 21;
  const created = [];
  for (let i = 0; i < count; i++) created.push(await client.organizations.create({ name: `Runtime ${i}` }));
  check(
    created[0].name === 'Runtime 0' && typeof created[0].id === 'string',
    'create returns the organization',
  );
  lines.push(`create: ${count} organizations`);

  const first = await client.organizations.list();
  check(
    first.totalPages === 2 && first.totalCount === count,
    `two pages of ${count} (got ${first.totalPages}, ${first.totalCount})`,
  );
  check(first.hasNextPage(), 'the first page has a next page');
  const names = [];
  for await (const organization of client.organizations.list()) names.push(organization.name);
  check(names.length === count, `auto-pagination yields every organization (got ${names.length})`);
  check(names.join() === created.map((o) => o.name).join(), 'auto-pagination keeps the creation order');
  lines.push(`list: ${names.length} organizations on ${first.totalPages} pages (for await)`);

  const id = created[0].id;
  const fresh = await client.organizations.retrieve(id).withResponse();
  const etag = fresh.response.headers.get('etag');
  check(
    fresh.response.status === 200 && etag?.startsWith('W/"'),
    `first retrieve: 200 with a weak ETag (got ${fresh.response.status}, ${etag})`,
  );
  const again = await client.organizations.retrieve(id).withResponse();
  check(
    again.response.status === 304,
    `second retrieve answered 304 from the cache (got ${again.response.status})`,
  );
  check(
    JSON.stringify(again.data) === JSON.stringify(fresh.data),
    'the cached organization equals the first one',
  );
  lines.push(`retrieve: 200 with ETag ${etag}, then 304 from the ETag cache`);

  const missing = await client.organizations.retrieve(MISSING_ID).then(
    () => undefined,
    (error) => error,
  );
  check(
    missing instanceof sdk.NotFoundError,
    `a missing organization rejects with NotFoundError (got ${missing})`,
  );
  check(
    missing instanceof sdk.APIError && missing.status === 404,
    'NotFoundError is an APIError with status 404',
  );
  lines.push(`error: ${missing.constructor.name} (status ${missing.status})`);
  return lines;
}
