/**
 * `http_responses_sending` (plugins/request-lifecycle.ts, `responsesSending`) counts answers handed
 * to their connection that the client has not taken yet. An answer to a client that already hung
 * up is not being sent: it must not stay counted (no `close` will ever come for it).
 */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerRequestLifecycle } from '../src/plugins/request-lifecycle.js';
import { heldRequest } from './held-request.js';

const app = Fastify({ logger: false });
const slow = heldRequest();
let answered: () => void = () => undefined;
let port: number;

beforeAll(async () => {
  await registerRequestLifecycle(app, { deadlines: { answerMs: 60_000, sendMs: 60_000 } });
  app.get(
    '/slow',
    {
      // Work done before the handler (as the token check is): held until released.
      onRequest: slow.hold,
      // After the app's own `onSend`: the answer has been handed over.
      onSend: (_request, _reply, payload, done) => {
        answered();
        done(null, payload);
      },
    },
    async () => ({ ok: true }),
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
});

afterAll(() => app.close());

describe('an answer to a client that hung up while its request was worked on', () => {
  it('is not counted among the answers being sent', async () => {
    await slow.hangUp(port, '/slow');
    // The work ends after the hang-up, and its answer goes to a connection that is gone.
    const handedOver = new Promise<void>((resolve) => {
      answered = resolve;
    });
    slow.release();
    await handedOver;

    expect(app.responsesSending()).toBe(0);
  });
});
