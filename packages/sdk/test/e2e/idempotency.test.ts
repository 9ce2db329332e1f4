/**
 * Exactly-once POSTs over a connection that fails after the server acted: a proxy forwards each
 * POST to the real server, reads the whole answer, and drops the client's connection instead of
 * passing on the first answer for each Idempotency-Key. The SDK retries with the same key; the
 * server answers the stored answer. Every call succeeds, and each resource exists once.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Organization } from '../../src/index.js';
import { png, type TestUser, useServer } from './harness.js';

const server = useServer();

/** The proxy: every POST answer dropped the first time its key is seen; the rest passed on. */
const dropped: string[] = [];
const replayed: string[] = [];
let proxy: http.Server;
let proxyUrl: string;

beforeAll(async () => {
  const upstream = new URL(server.url);
  proxy = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const forwarded = http.request({
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: req.headers,
    });
    forwarded.end(Buffer.concat(chunks));
    const [answer] = (await once(forwarded, 'response')) as [http.IncomingMessage];
    const body: Buffer[] = [];
    for await (const chunk of answer) body.push(chunk as Buffer);
    const key = req.headers['idempotency-key'];
    if (req.method === 'POST' && typeof key === 'string' && !dropped.includes(key)) {
      // The server has answered (and acted); the client never hears of it.
      dropped.push(key);
      req.socket.destroy();
      return;
    }
    if (answer.headers['idempotent-replayed'] === 'true') replayed.push(String(key));
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    res.end(Buffer.concat(body));
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
});

let alice: TestUser;

test('every POST succeeds through the dropped answers, and each resource is created once', async () => {
  alice = await server.newUser('Alice Dropped');
  // Plain fetch: the harness's own fetch sends JSON requests to Prism in a contract run
  // (`pnpm test:contract`), around this proxy.
  const client = server.client(alice.token, {
    baseUrl: proxyUrl,
    fetch: (input, init) => fetch(input, init),
  });
  const orgs: Organization[] = [];
  for (let i = 1; i <= 5; i++) orgs.push(await client.organizations.create({ name: `Dropped Inc ${i}` }));
  const org = orgs[0] as Organization;
  const withLogo = await client.organizations.create({
    name: 'Dropped Logo Inc',
    logo: new Blob([new Uint8Array(png(4, 4, [200, 10, 10]))], { type: 'image/png' }),
  });
  const collab = await client.collabs.create(org.id, { name: 'Dropped collab' });
  const submitted = await client.collabs.submit(org.id, collab.id);
  const campaign = await client.campaigns.create(org.id, { name: 'Dropped campaign' });

  expect(submitted.state).toBe('submitted_for_review');
  expect(withLogo.logo_url).toEqual(expect.any(String));
  // 9 POSTs: each first answer dropped, each retry answered from the stored answer.
  expect(dropped).toHaveLength(9);
  expect(replayed.sort()).toEqual([...dropped].sort());

  const names = await server.sql<{ name: string }>(
    'select name from organizations where name like ? order by name',
    ['Dropped%'],
  );
  expect(names.map((r) => r.name)).toEqual([
    'Dropped Inc 1',
    'Dropped Inc 2',
    'Dropped Inc 3',
    'Dropped Inc 4',
    'Dropped Inc 5',
    'Dropped Logo Inc',
  ]);
  expect(await server.sql('select id from collabs')).toEqual([{ id: collab.id }]);
  expect(await server.sql('select id from campaigns')).toEqual([{ id: campaign.id }]);
  expect(await server.sql('select "key" from idempotency_keys')).toHaveLength(9);
});
