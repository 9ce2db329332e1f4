/** The answers of the SDK's benches (stub-server.ts over the network, overhead.ts without it). */
const at = '2026-11-23T10:00:00.000Z';

/** An organization's JSON, as the server writes it. */
export const organizationBody = (id: string): string =>
  JSON.stringify({
    id,
    name: 'Bench',
    privacy_setting: 'private',
    website: null,
    created_at: at,
    updated_at: at,
    url: `http://127.0.0.1/organizations/${id}`,
  });

/** The `i`-th collab of an organization's list. */
export const collab = (i: number) => ({
  id: `Collab${String(i).padStart(10, '0')}`,
  name: `Collab ${i}`,
  state: 'draft',
  currency: 'usd',
  countries: ['US'],
  website: null,
  require_boosted_ads: false,
  requires_product_shipment: false,
  submissions_count: 0,
  completed_count: 0,
  published_at: null,
  created_at: at,
  updated_at: at,
  url: `http://127.0.0.1/organizations/OrgBench00000001/collabs/Collab${i}`,
  banner_image_url: null,
});
