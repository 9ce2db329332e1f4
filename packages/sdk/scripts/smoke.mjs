// Imports the built ESM entry (as a consumer would, by package name) and makes one real request.
import assert from 'node:assert/strict';
import { Marketplace, NotFoundError, VERSION } from '@app/sdk';
import { serveOnce } from './smoke-server.mjs';

const { baseUrl, close } = await serveOnce();
try {
  const client = new Marketplace({ token: 'mkt_smoke', baseUrl });
  const org = await client.organizations.retrieve('org1');
  assert.equal(org.name, 'Smoke');
  await assert.rejects(client.organizations.retrieve('missing'), NotFoundError);
  console.log(`ESM ok: @app/sdk ${VERSION}, ${import.meta.resolve('@app/sdk')}`);
} finally {
  await close();
}
