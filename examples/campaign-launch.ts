/**
 * Launches a campaign: a draft with a banner image, funded, then published.
 *
 *   MARKETPLACE_BASE_URL=http://127.0.0.1:3000 MARKETPLACE_TOKEN=mkt_… \
 *   MARKETPLACE_TEST_HELPERS_KEY=… npx --yes pnpm@10.34.9 --filter examples run campaign-launch
 *
 * Funding is done in the marketplace's web app; against the reference server, its test helpers do
 * it (MARKETPLACE_TEST_HELPERS_KEY, the key the server was started with). The campaign goes to
 * the first organization the token can see, or to a new one.
 *
 * Shows: a multipart upload (a PNG made in memory), test helpers, transitions (publish resolves to
 * the campaign read again), and the typed errors of a guard (422) and of a bad payload.
 */
import { crc32, deflateSync } from 'node:zlib';
import { Marketplace, MarketplaceError, RequestValidationError, ValidationError } from '@app/sdk';

function env(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`Set ${name} (see examples/README.md).`);
    process.exit(2);
  }
  return value;
}

/** A solid-colour PNG (8-bit RGB): signature, IHDR, IDAT (deflated rows), IEND. */
function solidPng(width: number, height: number, rgb: [number, number, number]): Uint8Array<ArrayBuffer> {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits per channel, RGB, deflate, no filter, no interlace
  const row = Buffer.from([0, ...Array.from({ length: width }, () => rgb).flat()]); // filter byte 0
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(Array.from({ length: height }, () => row)))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return new Uint8Array(png);
}

const client = new Marketplace({
  token: env('MARKETPLACE_TOKEN'),
  baseUrl: env('MARKETPLACE_BASE_URL'),
  testHelpersKey: env('MARKETPLACE_TEST_HELPERS_KEY'),
});

try {
  const [first] = await client.organizations.list().toArray({ limit: 1 });
  const org = first ?? (await client.organizations.create({ name: 'Launch Studio' }));
  console.log(`Organization: ${org.name} (${org.id})${first ? '' : ', created'}`);

  // The SDK checks a payload before sending it: nothing reaches the server here.
  try {
    await client.campaigns.create(org.id, {
      name: 'Bad',
      min_payout_amount: 5_000,
      max_payout_amount: 1_000,
    });
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error;
    console.log(`Refused before sending: ${JSON.stringify(error.errors)}`);
  }

  const banner = new Blob([solidPng(64, 32, [255, 94, 58])], { type: 'image/png' });
  const draft = await client.campaigns.create(org.id, {
    name: `Spring reels ${new Date().toISOString().slice(0, 10)}`,
    brief: '## What we want\n\nA 30-second reel showing the product **in use**.',
    cpm_amount: 400, // per 1 000 views, in cents
    min_payout_amount: 1_000,
    max_payout_amount: 80_000,
    platform_ids: ['youtube', 'x'],
    countries: ['us', 'ca'],
    banner_image: banner, // a Blob: the request goes as multipart/form-data
  });
  console.log(`Drafted campaign: ${draft.name} (${draft.id}), status ${draft.status}`);
  console.log(`Banner: ${draft.banner_image_url}`);

  // Publishing needs a budget: the server's guard answers 422 with the field at fault.
  try {
    await client.campaigns.publish(org.id, draft.id);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    console.log(`Not published yet: ${JSON.stringify(error.errors)}`);
  }

  const funding = await client.testHelpers.createFunding(org.id, draft.id, { amount: 250_000 });
  console.log(`Funded: ${funding.amount} (${draft.currency})`);

  const live = await client.campaigns.publish(org.id, draft.id);
  console.log(
    `Published: status ${live.status}, budget ${live.total_budget_amount}, since ${live.published_at}`,
  );
} catch (error) {
  process.exitCode = 1;
  if (error instanceof MarketplaceError) console.error(`Launch failed: ${error.name}: ${error.message}`);
  else throw error;
}
