/*
 * A product website for the prefill tests: node:http on 127.0.0.1 with a random port. It counts
 * the requests to each path, so a test can prove that a refused address was never contacted, and
 * records the requests the client gave up on before they were answered.
 */
import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from './fixtures/organization.js';

export interface PageServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** Requests received, by path. */
  hits: Map<string, number>;
  /** Host headers received, in order. */
  hosts: string[];
  /** Paths of the requests whose connection the client closed before an answer was sent, in order. */
  abandoned: string[];
  /** Resolves with the path of the next request the client abandons (call it before the request). */
  nextAbandoned(): Promise<string>;
  /** Resolves when the next request for `path` arrives (call it before the request). */
  nextRequest(path: string): Promise<void>;
  /** Answers the requests `/held` is holding with the product page (it holds each until then). */
  release(): void;
  close(): Promise<void>;
}

type Route = (req: IncomingMessage, res: ServerResponse, origin: string) => void;

const html = (res: ServerResponse, body: string) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
};

export const productPage = (origin: string, image = `${origin}/image.png`) => `<!doctype html>
<html><head>
<title>Fallback title</title>
<meta property="og:title" content="  Trail &amp; Run   Shoes ">
<meta property="og:description" content="Light shoes for <b>long</b> runs.">
<meta property="og:image" content="${image}">
<meta property="og:locale" content="en_GB">
</head><body><h1>Shop</h1></body></html>`;

const ROUTES: Record<string, Route> = {
  '/product': (_req, res, origin) => html(res, productPage(origin)),
  '/relative-image': (_req, res, origin) => html(res, productPage(origin, '/image.png')),
  '/title-only': (_req, res) => html(res, '<html><head><title> Just a   title </title></head></html>'),
  '/fake-image': (_req, res, origin) => html(res, productPage(origin, `${origin}/not-an-image.png`)),
  '/big-image': (_req, res, origin) => html(res, productPage(origin, `${origin}/huge.png`)),
  '/private-image': (_req, res, origin) => html(res, productPage(origin, `${origin}/image.png`)),
  '/image.png': (_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end(PNG);
  },
  '/not-an-image.png': (_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end('<svg onload="alert(1)"></svg>');
  },
  '/huge.png': (_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end(Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024)]));
  },
  '/large-page': (_req, res, origin) => {
    // The tags come first, then 3 MiB: only the first MiB is read.
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write(productPage(origin).replace('</body></html>', ''));
    res.end(`<p>${'x'.repeat(3 * 1024 * 1024)}</p></body></html>`);
  },
  // Text cut at the name's 200 and the description's 5 000 UTF-16 units, each in an emoji's middle.
  '/emoji': (_req, res) =>
    html(
      res,
      `<html><head><meta property="og:title" content="a${'😀'.repeat(150)}">` +
        `<meta property="og:description" content="b${'😀'.repeat(2_600)}"></head></html>`,
    ),
  // A page in Latin-1, said in the Content-Type header, then one said in a <meta> only.
  '/latin1': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=ISO-8859-1' });
    res.end(
      Buffer.from('<html><head><meta property="og:title" content="Café Crème"></head></html>', 'latin1'),
    );
  },
  '/latin1-meta': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      Buffer.from(
        '<html><head><meta charset="windows-1252"><meta property="og:title" content="Café Crème"></head></html>',
        'latin1',
      ),
    );
  },
  '/json': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"og:title": "nope"}');
  },
  '/missing': (_req, res) => {
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end(productPage('http://127.0.0.1'));
  },
  // Never answers: for timeouts.
  '/hang': () => {},
};

/** `/held`'s requests, answered with the product page when the test releases them. */
const held: Array<() => void> = [];

/** `/redirect/<n>` redirects n times before landing on /product; `/to?url=…` redirects to any URL. */
function route(path: string, query: URLSearchParams): Route | undefined {
  const redirect = /^\/redirect\/(\d+)$/.exec(path);
  if (redirect) {
    const n = Number(redirect[1]);
    return (_req, res) => {
      res.writeHead(302, { location: n > 1 ? `/redirect/${n - 1}` : '/product' });
      res.end();
    };
  }
  if (path === '/held') return (_req, res, origin) => void held.push(() => html(res, productPage(origin)));
  if (path === '/to') {
    return (_req, res) => {
      res.writeHead(302, { location: query.get('url') ?? '/' });
      res.end();
    };
  }
  return ROUTES[path];
}

export async function startPageServer(): Promise<PageServer> {
  const hits = new Map<string, number>();
  const hosts: string[] = [];
  const abandoned: string[] = [];
  const events = new EventEmitter();
  let origin = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin);
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    hosts.push(req.headers.host ?? '');
    events.emit(`request ${url.pathname}`);
    res.on('close', () => {
      if (res.writableFinished) return;
      abandoned.push(url.pathname);
      events.emit('abandoned', url.pathname);
    });
    const handler = route(url.pathname, url.searchParams);
    if (handler) return handler(req, res, origin);
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    hits,
    hosts,
    abandoned,
    nextAbandoned: async () => ((await once(events, 'abandoned')) as [string])[0],
    nextRequest: async (path) => void (await once(events, `request ${path}`)),
    release: () => {
      for (const answer of held.splice(0)) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
