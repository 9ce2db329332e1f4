import { createServer } from 'node:net';

/**
 * A loopback port that was free a moment ago, so that a server's base URL (the `url` fields of
 * its responses) is known before it listens. Another process may take it meanwhile: listen on it
 * and try another one on `EADDRINUSE` (as {@link startTestServer} does).
 */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
