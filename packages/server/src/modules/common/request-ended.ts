import type { ServerResponse } from 'node:http';

/*
 * Work a request may wait for (a brief's rendering) is given up once nobody can receive its
 * answer: the client has gone away, or the request was answered already (its handler timed out).
 * Both close the response before the handler has answered.
 *
 * Fastify's `request.signal` cannot tell: on Node 24 the incoming request emits `close` as soon as
 * its body has been read, so the signal of every request with a body is aborted before its
 * handler runs. The response's `close` comes only when the exchange is over.
 */

const signals = new WeakMap<ServerResponse, AbortSignal>();

/** Aborted once the response is closed (the client gone, or already answered); one per response. */
export function requestEnded(reply: { raw: ServerResponse }): AbortSignal {
  const response = reply.raw;
  let signal = signals.get(response);
  if (signal) return signal;
  const controller = new AbortController();
  signal = controller.signal;
  signals.set(response, signal);
  if (response.closed) controller.abort();
  else response.once('close', () => controller.abort());
  return signal;
}
