// Imports the built ESM entry (as a consumer would, by package name) and makes one real request.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { Marketplace, MarketplaceError, NotFoundError, VERSION } from '@app/sdk';
import { serveOnce } from './smoke-server.mjs';

const { baseUrl, close } = await serveOnce();
try {
  const client = new Marketplace({ token: 'mkt_smoke', baseUrl });
  const org = await client.organizations.retrieve('org1');
  assert.equal(org.name, 'Smoke');
  await assert.rejects(client.organizations.retrieve('missing'), NotFoundError);
  // The CommonJS build loaded beside this one (`require` in another module): its errors are still
  // NotFoundErrors here.
  const cjs = createRequire(import.meta.url)('@app/sdk');
  assert.notEqual(cjs.NotFoundError, NotFoundError);
  const fromCjs = await new cjs.Marketplace({ token: 'mkt_smoke', baseUrl }).organizations
    .retrieve('missing')
    .catch((error) => error);
  assert.ok(fromCjs instanceof NotFoundError && fromCjs instanceof MarketplaceError);
  console.log(`ESM ok: @app/sdk ${VERSION}, ${import.meta.resolve('@app/sdk')}`);
} finally {
  await close();
}
