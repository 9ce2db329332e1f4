// Requires the built CJS entry (as a consumer would, by package name) and makes one real request.
const assert = require('node:assert/strict');
const { Marketplace, NotFoundError, VERSION } = require('@app/sdk');

(async () => {
  const { serveOnce } = await import('./smoke-server.mjs');
  const { baseUrl, close } = await serveOnce();
  try {
    const client = new Marketplace({ token: 'mkt_smoke', baseUrl });
    const org = await client.organizations.retrieve('org1');
    assert.equal(org.name, 'Smoke');
    await assert.rejects(client.organizations.retrieve('missing'), NotFoundError);
    console.log(`CJS ok: @app/sdk ${VERSION}, ${require.resolve('@app/sdk')}`);
  } finally {
    await close();
  }
})().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
