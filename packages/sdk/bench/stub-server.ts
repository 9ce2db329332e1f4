/**
 * The server of the SDK bench: node:http answering from memory, in its own process, so that what
 * differs between the SDK and a raw `fetch` loop is the client's own work. An organization (with
 * and without an ETag) and a list of `BENCH_ITEMS` collabs, 20 a page; `BENCH_LATENCY_MS` delays
 * each list page.
 */
import { createServer } from 'node:http';
import { PAGE_SIZE, PAGINATION_HEADERS } from '@app/schemas';
import { collab, organizationBody } from './bodies.js';

const latency = Number(process.env.BENCH_LATENCY_MS ?? 0);
const items = Number(process.env.BENCH_ITEMS ?? 10_000);
const organization = organizationBody('OrgBench00000001');
const plainOrganization = organizationBody('OrgBench00000002');
const etag = 'W/"bench"';
const totalPages = Math.max(1, Math.ceil(items / PAGE_SIZE));
const pages = new Map<number, string>();
const pageBody = (page: number) => {
  let body = pages.get(page);
  if (!body) {
    const from = (page - 1) * PAGE_SIZE;
    const list = [];
    for (let i = from; i < Math.min(items, from + PAGE_SIZE); i++) list.push(collab(i));
    body = JSON.stringify(list);
    pages.set(page, body);
  }
  return body;
};

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/organizations/OrgBench00000001.json') {
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { etag });
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'application/json', etag });
    return res.end(organization);
  }
  if (url.pathname === '/organizations/OrgBench00000002.json') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(plainOrganization);
  }
  if (url.pathname === '/organizations/OrgBench00000001/collabs.json') {
    const page = Number(url.searchParams.get('page') ?? 1);
    const answer = () => {
      res.writeHead(200, {
        'content-type': 'application/json',
        [PAGINATION_HEADERS.currentPage]: String(page),
        [PAGINATION_HEADERS.pageItems]: String(PAGE_SIZE),
        [PAGINATION_HEADERS.totalCount]: String(items),
        [PAGINATION_HEADERS.totalPages]: String(totalPages),
      });
      res.end(page <= totalPages ? pageBody(page) : '[]');
    };
    return latency > 0 ? setTimeout(answer, latency) : answer();
  }
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end('{"error":"Not found"}');
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
});
