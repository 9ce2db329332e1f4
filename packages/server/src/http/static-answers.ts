import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagOf, matchesIfNoneMatch } from './etag.js';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** One static answer in each encoding, made once (compression runs on libuv's thread pool). */
interface StaticAnswer {
  etag: string;
  type: string;
  identity: Buffer;
  /** Absent for a small answer, which is sent as it is. */
  br?: Buffer;
  gzip?: Buffer;
}

/** Answers under this size are sent as they are: compressing them saves less than it costs. */
const MIN_COMPRESSED_BYTES = 1024;

/** Shared by every app of the process: the answers of Scalar's page do not differ between them. */
const made = new Map<string, Promise<StaticAnswer>>();

async function makeAnswer(body: string, type: string): Promise<StaticAnswer> {
  const identity = Buffer.from(body);
  if (identity.length < MIN_COMPRESSED_BYTES) return { etag: etagOf(body), type, identity };
  const [br, gz] = await Promise.all([
    brotli(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }),
    gzipped(identity, { level: 9 }),
  ]);
  return { etag: etagOf(body), type, identity, br, gzip: gz };
}

/** `br`, then `gzip`, when the client accepts it (quality values honoured: `;q=0` refuses). */
function encodingFor(accept: string | undefined): 'br' | 'gzip' | undefined {
  const accepted = new Set<string>();
  for (const part of (accept ?? '').toLowerCase().split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim());
    const q = params.find((p) => p.startsWith('q='));
    if (q && Number(q.slice(2)) === 0) continue;
    accepted.add(name);
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return undefined;
}

/**
 * Static answers (the reference page's HTML and its 4 MB script) served compressed, with an
 * `ETag`, `Vary: Accept-Encoding` and `Cache-Control`, and `304` on a matching `If-None-Match`.
 * A slow client then holds a connection for a fraction of the bytes, and a returning one for
 * none (an answer under 1 KiB is not compressed). `staticAnswers(cacheControl)` gives the two hooks of a plugin scope whose GET answers do
 * not change while the process runs: the first answer of each path is compressed once (its
 * handler runs that one time), every later request of the path is answered from memory.
 */
export function staticAnswers(cacheControl: (path: string) => string) {
  const byPath = new Map<string, StaticAnswer>();
  const pathOf = (request: FastifyRequest) => request.url.split('?')[0] as string;

  const send = (request: FastifyRequest, reply: FastifyReply, answer: StaticAnswer, path: string) => {
    reply
      .header('etag', answer.etag)
      .header('vary', 'accept-encoding')
      .header('cache-control', cacheControl(path));
    if (matchesIfNoneMatch(request.headers['if-none-match'], answer.etag)) return reply.code(304).send();
    const encoding = answer.br && encodingFor(request.headers['accept-encoding']);
    if (encoding) reply.header('content-encoding', encoding);
    return reply.type(answer.type).send((encoding && answer[encoding]) || answer.identity);
  };

  return {
    /** `onRequest`: a path already made is answered from memory. */
    onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      const path = pathOf(request);
      const answer = byPath.get(path);
      if (answer) return send(request, reply, answer, path);
    },
    /** `onSend`: the first `200` of a path with a text body is made into a static answer. */
    onSend: async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      if (reply.statusCode !== 200 || typeof payload !== 'string' || request.method !== 'GET') return payload;
      if (reply.getHeader('content-encoding')) return payload;
      const type = String(reply.getHeader('content-type') ?? 'application/octet-stream');
      const key = `${type}\n${payload.length}\n${etagOf(payload)}`;
      let making = made.get(key);
      if (!making) {
        making = makeAnswer(payload, type);
        made.set(key, making);
      }
      const answer = await making;
      const path = pathOf(request);
      byPath.set(path, answer);
      reply
        .header('etag', answer.etag)
        .header('vary', 'accept-encoding')
        .header('cache-control', cacheControl(path));
      if (matchesIfNoneMatch(request.headers['if-none-match'], answer.etag)) {
        reply.code(304);
        reply.removeHeader('content-type');
        return null;
      }
      const encoding = answer.br && encodingFor(request.headers['accept-encoding']);
      if (!encoding) return answer.identity;
      reply.header('content-encoding', encoding);
      return answer[encoding] ?? answer.identity;
    },
  };
}
