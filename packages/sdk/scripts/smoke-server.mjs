import { createServer } from 'node:http';

const at = '2026-11-21T10:15:30.123Z';

/** A loopback server answering `GET /organizations/org1.json`, and 404 for anything else. */
export async function serveOnce() {
  const server = createServer((req, res) => {
    const baseUrl = `http://127.0.0.1:${server.address().port}`;
    if (req.url !== '/organizations/org1.json') {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"Not found"}');
      return;
    }
    const org = {
      id: 'org1',
      name: 'Smoke',
      privacy_setting: 'private',
      website: null,
      created_at: at,
      updated_at: at,
      url: `${baseUrl}${req.url}`,
    };
    res.writeHead(200, { 'Content-Type': 'application/json', ETag: 'W/"1"' }).end(JSON.stringify(org));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * The real reference server from the test kit, for the checks on every runtime
 * (scripts/runtimes). Imported on first use: the package check runs this file's `serveOnce`
 * where the kit is not installed.
 */
export async function startRealServer(options) {
  const { startTestServer } = await import('@app/testing');
  return startTestServer(options);
}
