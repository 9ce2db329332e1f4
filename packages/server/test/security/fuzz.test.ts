/**
 * Property-based fuzzing of every writable endpoint (POST/PATCH/DELETE of the public table, and
 * every test helper) with fast-check. Payloads come from the endpoint's zod schema, mostly valid,
 * mixed with hostile values at every node and hostile bodies, callers, path ids and queries.
 *
 * Properties, for every request:
 * - never a 5xx, and a success is the endpoint's documented success status;
 * - every rejection has its documented shape (401 text/plain with the challenge; other 4xx
 *   `{"error": string}` or `{"errors": {field: string[]}}`);
 * - after a rejection the database (every table, by digest) and the uploads folder are unchanged;
 * - `Object.prototype` and `Array.prototype` are never polluted.
 *
 * `FUZZ_RUNS_SCALE` multiplies the runs (e.g. 10 for a long local run); `FUZZ_SEED` replays a seed.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type NamedEndpoint, publicEndpoints, testHelperEndpointList } from '@app/schemas';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { TEST_HELPERS_KEY, type TestUser, useTestServer } from '../harness.js';
import { type Digest, digester, nextTransactionId } from './database-dump.js';
import { rejectionShapeProblem, writeReport } from './shapes.js';
import {
  buildWorld,
  type CallerKind,
  ensureAddress,
  needsFreshTarget,
  paramsFor,
  tokenOf,
  userOf,
  type World,
} from './world.js';
import {
  type ArbitraryContext,
  arbitraryOf,
  hostileString,
  hostileValue,
  nested,
  ownObject,
  POLLUTION_KEYS,
  toJsonText,
} from './zod-arbitrary.js';

const server = useTestServer({}, {}, { keepData: true });
const { digest } = digester(server);
let world: World;
/** Ids of the second organization's resources: "ids of other tenants" in payloads. */
let ctx: ArbitraryContext;

const SCALE = Number(process.env.FUZZ_RUNS_SCALE ?? 1);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

const writable: NamedEndpoint[] = [
  ...publicEndpoints.filter((e) => e.method !== 'GET'),
  ...testHelperEndpointList,
];

/** Endpoints that take a payload have more to explore than those that only take ids. */
const runsOf = (e: NamedEndpoint) => Math.round((e.body ? 120 : 60) * SCALE);

const SEMANTIC_STRINGS = [
  'Acme',
  'usd',
  'EUR',
  'US',
  'fr',
  'de',
  'https://example.com/page',
  'http://127.0.0.1:9/',
  'youtube',
  'twitch',
  'member',
  'admin',
  'published',
  'active',
  'paused',
  'write',
  'read',
  '1',
  '0',
];

/** Loopback only: a `website` query is fetched (refused as private, but never sent elsewhere). */
const QUERY_CTX: ArbitraryContext = {
  strings: [
    'http://127.0.0.1:9/',
    'http://localhost:9/x',
    'http://[::1]:9/',
    'http://0x7f000001:9/',
    'ftp://127.0.0.1/',
  ],
};

const polluted = () => ownObject([['polluted', 'yes']]);
const INVALID_JSON = [
  '{',
  '{"a":',
  'nul',
  '[1,2',
  "{'a':1}",
  '{"a":1}}',
  '\u0000',
  '{"a":"\\ud800"',
  '01',
  '{"a":1,}',
];

type Caller = { kind: 'user'; who: CallerKind } | { kind: 'key' } | { kind: 'header'; value: string | null };
type Target = { kind: 'own' | 'other' | 'unknown' } | { kind: 'hostile'; value: string; raw: boolean };
type Body =
  | { kind: 'none' }
  | { kind: 'text'; text: string; contentType: string }
  | {
      kind: 'form';
      fields: Array<[string, string]>;
      file: { name: string; field: string; data: string } | null;
    };
interface FuzzRequest {
  caller: Caller;
  target: Target;
  query: string;
  body: Body;
}

const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function callerArbitrary(e: NamedEndpoint): fc.Arbitrary<Caller> {
  const garbage = fc
    .constantFrom(
      null,
      'Bearer',
      'Bearer ',
      'Token abc',
      'Basic dXNlcjpwYXNz',
      `Bearer mkt_${'A'.repeat(43)}AAAAAA`,
      `Bearer ${TEST_HELPERS_KEY}`,
      `Bearer ${TEST_HELPERS_KEY.slice(0, -1)}`,
      `Bearer ${'x'.repeat(8000)}`,
      "Bearer mkt_' OR 1=1 --",
    )
    .map((value): Caller => ({ kind: 'header', value }));
  if (e.access === 'test-helpers') {
    const userToken = fc
      .constantFrom<CallerKind>('owner', 'read')
      .map((who): Caller => ({ kind: 'user', who }));
    return fc.oneof({ weight: 12, arbitrary: fc.constant<Caller>({ kind: 'key' }) }, garbage, userToken);
  }
  const who = (w: CallerKind, weight: number) => ({
    weight,
    arbitrary: fc.constant<Caller>({ kind: 'user', who: w }),
  });
  return fc.oneof(
    who('owner', 12),
    who('admin', 2),
    who('member', 2),
    who('nonMember', 1),
    who('read', 1),
    who('revoked', 1),
    who('none', 1),
    { weight: 1, arbitrary: garbage },
  );
}

const RAW_SEGMENTS = ['%', '%zz', '%C0%AF', '..', '%2e%2e', '%2F', '%00', ';', '*', 'a%20b', '%E2%80%AE'];

function targetArbitrary(e: NamedEndpoint): fc.Arbitrary<Target> {
  if (!e.path.includes(':')) return fc.constant<Target>({ kind: 'own' });
  return fc.oneof(
    { weight: 10, arbitrary: fc.constant<Target>({ kind: 'own' }) },
    { weight: 2, arbitrary: fc.constant<Target>({ kind: 'other' }) },
    { weight: 1, arbitrary: fc.constant<Target>({ kind: 'unknown' }) },
    {
      weight: 1,
      arbitrary: hostileString(ctx).map((value): Target => ({ kind: 'hostile', value, raw: false })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...RAW_SEGMENTS)
        .map((value): Target => ({ kind: 'hostile', value, raw: true })),
    },
  );
}

function queryArbitrary(e: NamedEndpoint): fc.Arbitrary<string> {
  const shape = e.query.shape as Record<string, z.ZodType>;
  const hostile = fc.constantFrom(
    '?__proto__[polluted]=yes',
    '?constructor[prototype][polluted]=yes',
    '?page=-1&per_page=1e309',
    '?a=%ZZ',
  );
  const entries = Object.entries(shape);
  if (entries.length === 0) return fc.oneof({ weight: 6, arbitrary: fc.constant('') }, hostile);
  const fields = Object.fromEntries(
    entries.map(([k, s]) => [k, arbitraryOf(s, { ctx: QUERY_CTX, hostility: 1 }, k)]),
  );
  const query = fc.record(fields, { requiredKeys: [] }).map((values) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(values)) q.append(k, typeof v === 'string' ? v : toJsonText(v));
    const text = q.toString();
    return text ? `?${text}` : '';
  });
  return fc.oneof(
    { weight: 6, arbitrary: query },
    hostile,
    fc.constant('?website=http://127.0.0.1:9/&website=x'),
  );
}

/** Wraps a payload in the endpoint's key (or leaves it flat). */
const wrap = (e: NamedEndpoint, inner: unknown) => (e.body?.key ? ownObject([[e.body.key, inner]]) : inner);
const json = (value: unknown): Body => ({
  kind: 'text',
  text: toJsonText(value),
  contentType: 'application/json',
});

function bodyArbitrary(e: NamedEndpoint): fc.Arbitrary<Body> {
  const spec = e.body;
  const wholeHostile = fc.oneof(
    fc.constant<Body>({ kind: 'none' }),
    fc
      .constantFrom(...INVALID_JSON, '')
      .map((text): Body => ({ kind: 'text', text, contentType: 'application/json' })),
    hostileValue(ctx).map(json),
    hostileValue(ctx).map((v) => json(wrap(e, v))),
    fc.constantFrom(...POLLUTION_KEYS).map((k) => json(ownObject([[k, polluted()]]))),
    fc.constantFrom(...POLLUTION_KEYS).map((k) => json(wrap(e, ownObject([[k, polluted()]])))),
    fc.constant(json(wrap(e, nested(1000, 'object')))),
    fc.constant<Body>({ kind: 'text', text: '{"a":1}', contentType: 'text/plain' }),
    fc.constant<Body>({ kind: 'text', text: 'a=1', contentType: 'application/x-www-form-urlencoded' }),
    fc.constant<Body>({
      kind: 'text',
      text: `{"x":"${'y'.repeat(1024 * 1024)}"}`,
      contentType: 'application/json',
    }),
  );
  if (!spec) return fc.oneof({ weight: 3, arbitrary: fc.constant<Body>({ kind: 'none' }) }, wholeHostile);
  const valid = arbitraryOf(spec.schema, { ctx, hostility: 0 });
  const mixed = arbitraryOf(spec.schema, { ctx, hostility: 1 });
  const duplicateKeys = valid.map((v): Body => {
    const text = toJsonText(wrap(e, v));
    return {
      kind: 'text',
      text: text.replace(/^\{/, '{"x":1,').replace(/\}$/, ',"x":2}'),
      contentType: 'application/json',
    };
  });
  const options = [
    { weight: 5, arbitrary: valid.map((v) => json(wrap(e, v))) },
    { weight: 5, arbitrary: mixed.map((v) => json(wrap(e, v))) },
    { weight: 1, arbitrary: valid.map((v) => json(wrap(e, [v]))) },
    { weight: 1, arbitrary: duplicateKeys },
    { weight: 3, arbitrary: wholeHostile },
  ];
  if (spec.files.length > 0 && spec.key)
    options.push({ weight: 2, arbitrary: formArbitrary(spec.key, spec.files, mixed) });
  return fc.oneof(...options);
}

/** A Rails-style multipart form (`key[field]`) from a payload, with a file of any kind. */
function formArbitrary(
  key: string,
  files: readonly string[],
  payload: fc.Arbitrary<unknown>,
): fc.Arbitrary<Body> {
  const file = fc.record({
    field: fc.constantFrom(...files, 'unknown_file', '__proto__'),
    name: fc.constantFrom('logo.png', '../../../etc/passwd', '😀.png', 'a'.repeat(300), ''),
    data: fc.constantFrom(
      PNG_BASE64,
      'PHN2Zz48c2NyaXB0PmFsZXJ0KDEpPC9zY3JpcHQ+PC9zdmc+',
      '',
      'A'.repeat(120 * 1024),
    ),
  });
  return fc
    .tuple(payload, fc.option(file), fc.option(fc.constantFrom(...POLLUTION_KEYS)))
    .map(([value, f, pollute]) => {
      const fields: Array<[string, string]> = [];
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        for (const [k, v] of Object.entries(value)) {
          if (Array.isArray(v)) for (const item of v) fields.push([`${key}[${k}][]`, String(item)]);
          else fields.push([`${key}[${k}]`, typeof v === 'string' ? v : toJsonText(v)]);
        }
      }
      if (pollute) fields.push([`${key}[${pollute}][polluted]`, 'yes'], [`${pollute}[polluted]`, 'yes']);
      return { kind: 'form', fields, file: f ? { ...f, field: `${key}[${f.field}]` } : null };
    });
}

function requestArbitrary(e: NamedEndpoint): fc.Arbitrary<FuzzRequest> {
  return fc.record({
    caller: callerArbitrary(e),
    target: targetArbitrary(e),
    query: queryArbitrary(e),
    body: bodyArbitrary(e),
  });
}

/** Percent-encodes a path segment byte by byte (lone surrogates become U+FFFD, as on the wire). */
const encodeSegment = (s: string) =>
  [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).padStart(2, '0').toUpperCase()}`,
    )
    .join('');

async function resolvePath(e: NamedEndpoint, req: FuzzRequest, user: TestUser): Promise<string> {
  const fresh = needsFreshTarget(e);
  let params: Record<string, string>;
  if (req.target.kind === 'other')
    params = await paramsFor(server, world, e, { user: world.otherOwner, org: world.other, fresh });
  else if (req.target.kind === 'unknown')
    params = Object.fromEntries(
      [...e.path.matchAll(/:([a-z_]+)/g)].map((m) => [m[1], randomBytes(12).toString('base64url')]),
    );
  else params = await paramsFor(server, world, e, { user, fresh });
  const names = Object.keys(params);
  const segments: Record<string, string> = Object.fromEntries(
    names.map((n) => [n, encodeSegment(params[n] as string)]),
  );
  if (req.target.kind === 'hostile') {
    const name = names[names.length - 1] as string;
    segments[name] = req.target.raw ? req.target.value : encodeSegment(req.target.value);
  }
  return `${e.path.replace(/:([a-z_]+)/g, (_, n: string) => segments[n] as string)}.json${req.query}`;
}

function authorizationOf(caller: Caller): string | null {
  if (caller.kind === 'key') return `Bearer ${TEST_HELPERS_KEY}`;
  if (caller.kind === 'header') return caller.value;
  const token = tokenOf(world, caller.who);
  return token ? `Bearer ${token}` : null;
}

async function send(e: NamedEndpoint, req: FuzzRequest) {
  const user = req.caller.kind === 'user' ? userOf(world, req.caller.who) : world.owner;
  const url = await resolvePath(e, req, user);
  // The address is the one target without an id: make sure there is one to delete.
  if (e.path === '/me/address' && needsFreshTarget(e)) await ensureAddress(server, user.token);
  const headers: Record<string, string> = {};
  const authorization = authorizationOf(req.caller);
  if (authorization !== null) headers.authorization = authorization;
  const before = { db: await databaseState(), uploads: uploadedFiles() };
  let res: Awaited<ReturnType<typeof server.request>>;
  if (req.body.kind === 'form') {
    const form = new FormData();
    for (const [k, v] of req.body.fields) form.append(k, v);
    const f = req.body.file;
    if (f) form.append(f.field, new File([Buffer.from(f.data, 'base64')], f.name, { type: 'image/png' }));
    res = await server.request(e.method, url, { headers, form });
  } else if (req.body.kind === 'text') {
    headers['content-type'] = req.body.contentType;
    res = await server.request(e.method, url, { headers, body: req.body.text });
  } else {
    res = await server.request(e.method, url, { headers });
  }
  return { res, before };
}

/** The last digest taken, with the transaction id it is valid for. */
let known: { xid: string; digest: Digest } | undefined;

/** The database's state: a new digest only when a transaction has run since the last one. */
async function databaseState() {
  const xid = await nextTransactionId(server);
  if (known?.xid !== xid) known = { xid, digest: await digest() };
  return known;
}

/** Unchanged since `before`: no transaction ran (nothing written), or every table digests the same. */
async function expectUnchanged(before: { xid: string; digest: Digest }) {
  if ((await nextTransactionId(server)) === before.xid) return;
  expect(await digest()).toEqual(before.digest);
}

const uploadedFiles = () => {
  const dir = join(server.config.dataDir, 'uploads');
  return existsSync(dir) ? readdirSync(dir).sort() : [];
};

const PROTOTYPES = [Object.prototype, Array.prototype, Function.prototype];
const prototypeKeys = () => PROTOTYPES.map((p) => Reflect.ownKeys(p).map(String).sort());
let cleanPrototypes: string[][];

const summary: Record<string, { runs: number; statuses: Record<string, number>; ms: number }> = {};

beforeAll(async () => {
  world = await buildWorld(server);
  cleanPrototypes = prototypeKeys();
  // Users in no organization, so that adding a member or a join request can succeed.
  const bystanders = await Promise.all([1, 2, 3, 4, 5].map(() => server.createUser({ name: 'Bystander' })));
  const userIds = [...bystanders, world.otherOwner, world.member].map((u) => u.user.id);
  ctx = {
    hints: {
      user_id: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...userIds) }, fc.string({ maxLength: 20 })),
    },
    strings: [
      ...SEMANTIC_STRINGS,
      world.other,
      world.otherCollab,
      world.otherCampaign,
      world.memberships.otherOwner,
      world.otherOwner.user.id,
      world.socialAccounts[world.otherOwner.user.id] as string,
      world.accessTokens[world.otherOwner.user.id] as string,
    ],
  };
});

afterAll(() => {
  const total = Object.values(summary).reduce((n, s) => n + s.runs, 0);
  writeReport('fuzz-summary.json', { seed: SEED ?? 'random', scale: SCALE, total, endpoints: summary });
  console.info(`fuzz: ${total} requests over ${Object.keys(summary).length} endpoints`);
  console.table(
    Object.fromEntries(
      Object.entries(summary).map(([k, s]) => [k, { runs: s.runs, ms: s.ms, ...s.statuses }]),
    ),
  );
});

describe('the checks of the fuzz properties can fail', () => {
  it('a write moves the transaction id and changes the digest; a rejected request changes nothing', async () => {
    const before = await databaseState();
    const rejected = await server.patch('/me/address.json', {
      token: world.owner.token,
      body: { address: 1 },
    });
    expect(rejected.statusCode).toBe(422);
    // The transaction id is the cluster's: on a PostgreSQL shared with other test files it may
    // move for their writes, which only costs a digest; the digest is what must not change.
    expect(await digest()).toEqual(before.digest);

    await server.sql("update organizations set name = name || '!' where id = ?", [world.other]);
    expect(await nextTransactionId(server)).not.toBe(before.xid);
    expect(await digest()).not.toEqual(before.digest);
  });

  it('sees a polluted prototype', () => {
    const target: Record<string, unknown> = {};
    Object.assign(Object.getPrototypeOf(target), { polluted: 'yes' });
    try {
      expect(prototypeKeys()).not.toEqual(cleanPrototypes);
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted;
    }
    expect(prototypeKeys()).toEqual(cleanPrototypes);
  });
});

describe('fuzzing every writable endpoint', () => {
  it('covers every POST, PATCH and DELETE of the table and every test helper', () => {
    const expected = [...publicEndpoints, ...testHelperEndpointList]
      .filter((e) => e.method !== 'GET')
      .map((e) => e.name);
    expect(writable.map((e) => e.name)).toEqual(expected);
    expect(writable.length).toBeGreaterThanOrEqual(30);
  });

  for (const e of writable) {
    it(`${e.name}: ${e.method} ${e.path}`, { timeout: 120_000 }, async () => {
      const stats = { runs: 0, statuses: {} as Record<string, number>, ms: 0 };
      summary[e.name] = stats;
      const started = performance.now();
      await fc.assert(
        fc.asyncProperty(requestArbitrary(e), async (req) => {
          const { res, before } = await send(e, req);
          stats.runs += 1;
          stats.statuses[res.statusCode] = (stats.statuses[res.statusCode] ?? 0) + 1;

          expect(res.statusCode, res.body.slice(0, 500)).toBeLessThan(500);
          expect(prototypeKeys()).toEqual(cleanPrototypes);
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
          if (res.statusCode < 400) {
            expect(res.statusCode, res.body.slice(0, 500)).toBe(e.status);
            return;
          }
          expect(rejectionShapeProblem(res)).toBeNull();
          await expectUnchanged(before.db);
          expect(uploadedFiles()).toEqual(before.uploads);
        }),
        { numRuns: runsOf(e), ...(SEED !== undefined && { seed: SEED }) },
      );
      stats.ms = Math.round(performance.now() - started);
    });
  }
});
