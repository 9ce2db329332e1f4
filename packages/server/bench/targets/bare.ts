/**
 * Bench target 1: bare Fastify answering the show's JSON body from memory (no auth, no database,
 * no logging). The ceiling every other figure is a fraction of.
 */
import Fastify from 'fastify';

const body = process.env.BENCH_BODY ?? '{}';
const app = Fastify({ logger: false });
app.get('/organizations/:id.json', async (_request, reply) => reply.type('application/json').send(body));
// Exit on the bench's SIGTERM rather than be killed by it, so `--cpu-prof` writes a profile.
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
