import { HttpResponse, http } from 'msw';
import { describe, expect, test } from 'vitest';
import { toFormData } from '../src/core/uploads.js';
import { RequestValidationError } from '../src/index.js';
import {
  BASE,
  COLLAB_ID,
  client,
  collab,
  mockServer,
  ORG_ID,
  organization,
  recordRequests,
} from './fixtures.js';

const server = mockServer();
const seen = recordRequests(server);
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const collabUrl = `${BASE}/organizations/${ORG_ID}/collabs/${COLLAB_ID}.json`;

/** What the server received; bodies are read while handling (the SDK cancels them afterwards). */
interface Received {
  contentType: string | null;
  wire: string;
  form?: FormData;
  json?: unknown;
}

function serve(): Received[] {
  const received: Received[] = [];
  const record = async (request: Request) => {
    const contentType = request.headers.get('content-type');
    const wire = await request.clone().text();
    received.push(
      contentType?.startsWith('multipart/')
        ? { contentType, wire, form: await request.formData() }
        : { contentType, wire, json: JSON.parse(wire) },
    );
  };
  server.use(
    http.post(`${BASE}/organizations.json`, async ({ request }) => {
      await record(request);
      return HttpResponse.json(organization, { status: 201 });
    }),
    http.patch(collabUrl, async ({ request }) => {
      await record(request);
      return HttpResponse.json(collab);
    }),
  );
  return received;
}

describe('a payload with a file is multipart', () => {
  test('Rails-style names under the wrapper key, the file with its name and type', async () => {
    const received = serve();
    const logo = new File([PNG], 'logo.png', { type: 'image/png' });
    await client().organizations.create({ name: 'Acme', website: 'https://acme.example', logo });

    const { contentType, wire, form = new FormData() } = received[0] as Received;
    expect(contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(wire).toContain('Content-Disposition: form-data; name="organization[logo]"; filename="logo.png"');
    expect(wire).toContain('Content-Type: image/png');
    expect([...form.keys()]).toEqual([
      'organization[name]',
      'organization[privacy_setting]', // the schema's default, sent as parsed
      'organization[website]',
      'organization[logo]',
    ]);
    expect(form.get('organization[name]')).toBe('Acme');
    expect(form.get('organization[privacy_setting]')).toBe('private');
    const file = form.get('organization[logo]') as File;
    expect([file.name, file.type, new Uint8Array(await file.arrayBuffer())]).toEqual([
      'logo.png',
      'image/png',
      PNG,
    ]);
  });

  test('arrays repeat `[]` names, booleans and numbers are text, null is empty', async () => {
    const received = serve();
    await client().collabs.update(ORG_ID, COLLAB_ID, {
      countries: ['us', 'ca'],
      require_boosted_ads: true,
      requires_product_shipment: false,
      website: null,
      banner_image: new Blob([PNG], { type: 'image/png' }),
    });
    const form = received[0]?.form as FormData;
    expect(form.getAll('collab[countries][]')).toEqual(['US', 'CA']); // normalised by the schema
    expect(form.get('collab[require_boosted_ads]')).toBe('true');
    expect(form.get('collab[requires_product_shipment]')).toBe('false');
    expect(form.get('collab[website]')).toBe('');
    expect((form.get('collab[banner_image]') as File).name).toBe('blob');
  });

  test('numbers and nested objects', () => {
    const form = toFormData('notification', {
      amount: 10000,
      params: { user_name: 'Bob' },
      empty: undefined,
    });
    expect([...form.entries()]).toEqual([
      ['notification[amount]', '10000'],
      ['notification[params][user_name]', 'Bob'],
    ]);
  });

  test('null is an empty value and an empty list one empty `name[]` (the server reads them back)', () => {
    expect([...toFormData('campaign', { platform_music_id: null, platform_ids: [] }).entries()]).toEqual([
      ['campaign[platform_music_id]', ''],
      ['campaign[platform_ids][]', ''],
    ]);
  });

  test('without a wrapper key the names are the bare fields', () => {
    expect([...toFormData(null, { push_notifications_enabled: true }).entries()]).toEqual([
      ['push_notifications_enabled', 'true'],
    ]);
  });
});

describe('a payload without a file is JSON', () => {
  test('wrapped in its key', async () => {
    const received = serve();
    await client().organizations.create({ name: 'Acme', logo: null });
    expect(received[0]?.contentType).toBe('application/json');
    expect(received[0]?.json).toEqual({ organization: { name: 'Acme', privacy_setting: 'private' } });
  });

  test('a file field holding something else is refused before sending', async () => {
    serve();
    const error = await client()
      .organizations.create({ name: 'Acme', logo: 'logo.png' as never })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).errors.logo?.[0]).toMatch(
      /^must be a Blob, File, Uint8Array or ArrayBuffer/,
    );
    expect(seen).toHaveLength(0);
  });
});

describe('bytes in a file field (Node: a Buffer, a Uint8Array, an ArrayBuffer)', () => {
  for (const [what, bytes] of [
    ['a Buffer', () => Buffer.from(PNG)],
    ['a Uint8Array', () => PNG],
    [
      'a Uint8Array over part of its buffer',
      () => new Uint8Array([0, 0, ...PNG, 0]).subarray(2, 2 + PNG.length),
    ],
    ['an ArrayBuffer', () => PNG.slice().buffer],
  ] as const)
    test(`${what} is sent as the file, its bytes as they are, with no type of its own`, async () => {
      const received = serve();
      await client().organizations.create({ name: 'Acme', logo: bytes() });
      const { form = new FormData(), wire } = received[0] as Received;
      expect(wire).toContain('Content-Disposition: form-data; name="organization[logo]"; filename="blob"');
      const file = form.get('organization[logo]') as File;
      // The server tells the image's type by its bytes (shared decisions §2), as for a Blob without one.
      expect([file.type || 'application/octet-stream', new Uint8Array(await file.arrayBuffer())]).toEqual([
        'application/octet-stream',
        PNG,
      ]);
    });

  test('the bytes are read when the call is made: changing them afterwards changes nothing sent', async () => {
    const received = serve();
    const bytes = Uint8Array.from(PNG);
    const call = client().organizations.create({ name: 'Acme', logo: bytes });
    bytes.fill(0);
    await call;
    const file = (received[0]?.form ?? new FormData()).get('organization[logo]') as File;
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(PNG);
  });
});

describe('what a file field does not read is refused, saying what to pass', () => {
  const refused = async (logo: unknown) => {
    serve();
    const error = await client()
      .organizations.create({ name: 'Acme', logo: logo as never })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(seen).toHaveLength(0);
    return (error as RequestValidationError).errors.logo?.join(' ');
  };

  test('a string (a path, a data: URL) is not read', async () => {
    expect(await refused('./logo.png')).toBe(
      'must be a Blob, File, Uint8Array or ArrayBuffer, not a string: a path is not read (in Node, pass `await openAsBlob(path)` from node:fs)',
    );
  });

  test('a web ReadableStream is not read', async () => {
    expect(await refused(new Blob([PNG]).stream())).toBe(
      'must be a Blob, File, Uint8Array or ArrayBuffer, not a stream: pass `await new Response(stream).blob()`, or in Node `new Blob([await buffer(stream)])` (node:stream/consumers)',
    );
  });

  test('a Node stream is not read', async () => {
    const { Readable } = await import('node:stream');
    expect(await refused(Readable.from([Buffer.from(PNG)]))).toBe(
      'must be a Blob, File, Uint8Array or ArrayBuffer, not a stream: pass `await new Response(stream).blob()`, or in Node `new Blob([await buffer(stream)])` (node:stream/consumers)',
    );
  });

  test('anything else', async () => {
    expect(await refused({ path: 'logo.png' })).toBe('must be a Blob, File, Uint8Array or ArrayBuffer');
    expect(await refused(42)).toBe('must be a Blob, File, Uint8Array or ArrayBuffer');
  });
});
