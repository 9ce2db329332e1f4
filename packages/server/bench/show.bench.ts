/**
 * The hot path of the API: an authenticated, organization-scoped show (token + membership in one
 * statement, the resource in a second), against `GET /health` (one trivial statement, no auth)
 * as the baseline. Run with `pnpm bench`; figures are in requests per second through inject().
 */
import { expect, test } from 'vitest';
import { useTestServer } from '../test/harness.js';

const server = useTestServer();

test('authenticated show vs. the health check baseline', async ({ bench }) => {
  const { token } = await server.createUser();
  const org = (
    await server.post('/organizations.json', { token, body: { organization: { name: 'Bench' } } })
  ).json();
  const url = `/organizations/${org.id}.json`;
  const etag = (await server.get(url, { token })).headers.etag as string;

  const summary = await bench.compare(
    bench('GET /health (baseline)', async () => {
      await server.get('/health');
    }),
    bench('GET /organizations/:id.json (200)', async () => {
      await server.get(url, { token });
    }),
    bench('GET /organizations/:id.json (304)', async () => {
      await server.get(url, { token, headers: { 'if-none-match': etag } });
    }),
    { time: 1_000 },
  );
  const baseline = summary.get('GET /health (baseline)')?.throughput.mean ?? 0;
  const show = summary.get('GET /organizations/:id.json (200)')?.throughput.mean ?? 0;
  console.log(`show / baseline throughput ratio: ${(show / baseline).toFixed(2)}`);
  expect(show).toBeGreaterThan(0);
});
