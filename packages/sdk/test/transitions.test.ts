import { buildPath, endpoints, publicEndpoints } from '@app/schemas';
import { HttpResponse, http } from 'msw';
import { describe, expect, test } from 'vitest';
import { ResponseValidationError, ValidationError } from '../src/index.js';
import {
  BASE,
  CAMPAIGN_ID,
  COLLAB_ID,
  campaign,
  client,
  collab,
  mockServer,
  ORG_ID,
  recordRequests,
} from './fixtures.js';

const server = mockServer();
const seen = recordRequests(server);
const collabPath = `/organizations/${ORG_ID}/collabs/${COLLAB_ID}`;
const campaignPath = `/organizations/${ORG_ID}/campaigns/${CAMPAIGN_ID}`;
const ETAG = 'W/"v1"';

/** A show endpoint with ETags, the transition answered 303 to the HTML page, which must not be read. */
function serve(path: string, action: string, before: object, after: object) {
  let current = before;
  server.use(
    http.get(`${BASE}${path}.json`, ({ request }) => {
      const etag = current === before ? ETAG : 'W/"v2"';
      return request.headers.get('if-none-match') === etag
        ? new HttpResponse(null, { status: 304, headers: { ETag: etag } })
        : HttpResponse.json(current, { headers: { ETag: etag } });
    }),
    http.post(`${BASE}${path}/${action}.json`, () => {
      current = after;
      return new HttpResponse(null, { status: 303, headers: { Location: path } });
    }),
    http.get(`${BASE}${path}`, () => HttpResponse.text('<html>', { status: 200 })),
  );
}

const trail = () =>
  seen.map((r) => `${r.method} ${new URL(r.url).pathname} ${r.headers.get('if-none-match')}`);

describe.each([
  ['submit', 'draft', 'submitted_for_review'],
  ['pause', 'published', 'paused'],
  ['unpause', 'paused', 'published'],
] as const)('collabs.%s', (action, from, to) => {
  test(`POSTs without following the 303, then reads the collab again (${from} → ${to})`, async () => {
    serve(collabPath, action, { ...collab, state: from }, { ...collab, state: to });
    const result = await client().collabs[action](ORG_ID, COLLAB_ID);
    expect(result.state).toBe(to);
    expect(trail()).toEqual([`POST ${collabPath}/${action}.json null`, `GET ${collabPath}.json null`]);
  });
});

describe.each([
  ['publish', 'draft', 'active'],
  ['pause', 'active', 'paused'],
  ['resume', 'paused', 'active'],
] as const)('campaigns.%s', (action, from, to) => {
  test(`POSTs without following the 303, then reads the campaign again (${from} → ${to})`, async () => {
    serve(campaignPath, action, { ...campaign, status: from }, { ...campaign, status: to });
    const result = await client().campaigns[action](ORG_ID, CAMPAIGN_ID);
    expect(result.status).toBe(to);
    expect(trail()).toEqual([`POST ${campaignPath}/${action}.json null`, `GET ${campaignPath}.json null`]);
  });
});

test('the re-read bypasses the cached copy and refreshes it', async () => {
  serve(collabPath, 'submit', collab, { ...collab, state: 'submitted_for_review' });
  const sdk = client();
  await sdk.collabs.retrieve(ORG_ID, COLLAB_ID); // cached with W/"v1"
  await sdk.collabs.submit(ORG_ID, COLLAB_ID);
  await sdk.collabs.retrieve(ORG_ID, COLLAB_ID); // revalidates the refreshed copy
  expect(trail()).toEqual([
    `GET ${collabPath}.json null`,
    `POST ${collabPath}/submit.json null`,
    `GET ${collabPath}.json null`,
    `GET ${collabPath}.json W/"v2"`,
  ]);
});

test('a transition not allowed from the current state is a ValidationError', async () => {
  server.use(
    http.post(`${BASE}${collabPath}/pause.json`, () =>
      HttpResponse.json({ errors: { state: ['cannot pause a draft'] } }, { status: 422 }),
    ),
  );
  const error = await client()
    .collabs.pause(ORG_ID, COLLAB_ID)
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ValidationError);
  expect((error as ValidationError).errors).toEqual({ state: ['cannot pause a draft'] });
  expect(seen).toHaveLength(1);
});

test('a transition answered with anything but 303 breaks the contract', async () => {
  server.use(http.post(`${BASE}${collabPath}/submit.json`, () => HttpResponse.json(collab)));
  await expect(client().collabs.submit(ORG_ID, COLLAB_ID)).rejects.toBeInstanceOf(ResponseValidationError);
});

describe('every transition of the table re-reads the page its 303 leads to', () => {
  const transitions = publicEndpoints.filter((e) => e.status === 303);
  const fixtures = {
    collabs: { id: COLLAB_ID, body: collab },
    campaigns: { id: CAMPAIGN_ID, body: campaign },
  } as const;

  test("there are six, each naming its group's show endpoint", () => {
    expect(transitions).toHaveLength(6);
    for (const e of transitions) {
      const group = e.name.split('.')[0] as keyof typeof fixtures;
      expect(e.show, e.name).toBe(endpoints[group].retrieve);
    }
  });

  test.each(transitions.map((e) => [e.name, e] as const))('%s', async (name, e) => {
    const [group, action] = name.split('.') as [keyof typeof fixtures, string];
    const { id, body } = fixtures[group];
    // What the server answers (spec: 303 to the resource's page, without `.json`).
    const page = `${BASE}/organizations/${ORG_ID}/${group}/${id}`;
    server.use(
      http.post(
        `${BASE}${buildPath(e.path, { organization_id: ORG_ID, id })}`,
        () => new HttpResponse(null, { status: 303, headers: { Location: page } }),
      ),
      http.get(`${page}.json`, () => HttpResponse.json(body)),
    );
    const method = (client()[group] as unknown as Record<string, (o: string, i: string) => Promise<unknown>>)[
      action
    ];
    await expect(method?.call(client()[group], ORG_ID, id)).resolves.toEqual(body);
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      `POST ${BASE}${e.path.replace(':organization_id', ORG_ID).replace(':id', id)}.json`,
      `GET ${page}.json`,
    ]);
  });
});
