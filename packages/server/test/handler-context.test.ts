/**
 * What a request allocates must be garbage that a young-generation collection frees once the
 * request is answered. The context given to handlers was an object literal with its own
 * `get em()`: V8 keeps such an object in dictionary mode, and under load every young collection
 * then moved the requests answered since the last one (~5 MB) into the old generation and took
 * 8–10 ms, the show's p99 (docs/performance.md, "p99 and garbage collection"; `--trace-gc` shows
 * it). The pauses are measured by `pnpm bench`; this test holds the cause: every request's context
 * is an ordinary object of one shape, with fast properties.
 */
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it, vi } from 'vitest';
import type { Context } from '../src/http/route.js';
import { organizationRoutes } from '../src/modules/organizations/organizations.routes.js';
import { useTestServer } from './harness.js';

// V8's own checks of an object's representation (`%HasFastProperties`, `%HaveSameMap`).
setFlagsFromString('--allow-natives-syntax');
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

// The contexts the organization show's handler is given (the route table's own entry, wrapped
// before the app is built from it).
const seen: Context<never, unknown>[] = [];
const show = organizationRoutes.find((route) => route.name === 'organizations.retrieve');
if (!show) throw new Error('no organizations.retrieve route');
const handler = show.handler;
show.handler = (context) => {
  seen.push(context as Context<never, unknown>);
  return handler(context);
};

const server = useTestServer();

describe("handlers' context", () => {
  it('is one ordinary object shape for every request, with fast properties', async () => {
    const { token } = await server.createUser();
    const org = (
      await server.post('/organizations.json', { token, body: { organization: { name: 'Acme' } } })
    ).json();
    for (let i = 0; i < 2; i++)
      expect((await server.get(`/organizations/${org.id}.json`, { token })).statusCode).toBe(200);

    const [first, second] = seen as [object, object];
    expect(seen).toHaveLength(2);
    expect([hasFastProperties(first), hasFastProperties(second), haveSameMap(first, second)]).toEqual([
      true,
      true,
      true,
    ]);
  });

  it('forks its EntityManager on first use, once', async () => {
    const { token } = await server.createUser();
    const org = (
      await server.post('/organizations.json', { token, body: { organization: { name: 'Acme' } } })
    ).json();
    seen.length = 0;
    await server.get(`/organizations/${org.id}.json`, { token });
    const [context] = seen as [Context<never, unknown>];
    expect(context.em).toBe(context.request.em);
    expect(context.em).toBe(context.em);
    expect(context.em).not.toBe(server.orm.em);
  });

  it('forks no EntityManager for what the prepared statements answer alone, past the last page too', async () => {
    const { token } = await server.createUser();
    const org = (
      await server.post('/organizations.json', { token, body: { organization: { name: 'Acme' } } })
    ).json();
    const created = await server.post(`/organizations/${org.id}/collabs.json`, {
      token,
      body: { collab: { name: 'Spring', brief: '# Spring' } },
    });
    expect(created.statusCode).toBe(201);
    const fork = vi.spyOn(server.orm.em, 'fork');
    try {
      const answered = [
        await server.get(`/organizations/${org.id}.json`, { token }),
        await server.get(`/organizations/${org.id}/collabs.json`, { token }),
        await server.get(`/organizations/${org.id}/collabs/${created.json().id}.json`, { token }),
      ];
      expect(answered.map((res) => res.statusCode)).toEqual([200, 200, 200]);
      expect(fork).not.toHaveBeenCalled();

      const past = await server.get(`/organizations/${org.id}/collabs.json?page=3`, { token });
      expect([past.statusCode, past.json(), past.headers['total-count']]).toEqual([200, [], '1']);
      // The total is read with the page (row_counts), not counted by a second statement.
      expect(fork).not.toHaveBeenCalled();
    } finally {
      fork.mockRestore();
    }
  });
});
