/**
 * Every transition of the endpoint table answers `303 See Other` to the page of the show endpoint
 * it names (`show`), and that page's JSON is the resource just changed. The SDK reads the resource
 * again through the same `show`, so a table entry that disagrees with the server fails here.
 */
import { buildPath, publicEndpoints } from '@app/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from './harness.js';
import { buildWorld, paramsFor, urlOf, type World } from './security/world.js';

const server = useTestServer({}, {}, { keepData: true });
const transitions = publicEndpoints.filter((e) => e.status === 303);

let world: World;
beforeAll(async () => {
  world = await buildWorld(server);
});

describe('transitions answer 303 to the show endpoint the table names', () => {
  it('every 303 endpoint names its show endpoint, a GET of the same resource', () => {
    expect(transitions.map((e) => e.name)).toEqual([
      'collabs.submit',
      'collabs.pause',
      'collabs.unpause',
      'campaigns.publish',
      'campaigns.pause',
      'campaigns.resume',
    ]);
    for (const e of transitions) {
      expect(e.show?.method, e.name).toBe('GET');
      expect(e.show?.etag, e.name).toBe(true);
      expect(e.path.startsWith(`${e.show?.path}/`), e.name).toBe(true);
    }
    // Nothing else names a show endpoint.
    expect(publicEndpoints.filter((e) => e.show !== undefined)).toEqual(transitions);
  });

  it.each(transitions.map((e) => [e.name, e] as const))('%s', async (_, e) => {
    const show = e.show;
    if (!show) throw new Error(`${e.name} names no show endpoint`);
    const params = await paramsFor(server, world, e, { user: world.owner, fresh: true });
    const res = await server.post(urlOf(e, params), { token: world.owner.token });
    expect(res.statusCode).toBe(303);
    expect(res.body).toBe('');
    const page = buildPath(show.path, params).slice(0, -'.json'.length);
    expect(res.headers.location).toBe(`${server.config.baseUrl}${page}`);
    const shown = await server.get(`${page}.json`, { token: world.owner.token });
    expect(shown.statusCode).toBe(show.status);
    expect(shown.json()).toMatchObject({ id: params.id });
  });
});
