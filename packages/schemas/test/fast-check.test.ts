import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  acceptsAsIs,
  contractRegistry,
  ErrorBody,
  endpoints,
  PageQuery,
  ValidationErrorBody,
} from '../src/index.js';

/** A small deterministic generator (mulberry32), so that a failure can be replayed. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The valid bodies of a schema: its component's examples (an array: its items' examples). */
function examplesOf(schema: z.ZodType): unknown[] {
  const def = (schema as z.core.$ZodType)._zod.def;
  if (def.type === 'array') {
    const items = examplesOf((def as z.core.$ZodArrayDef).element as z.ZodType);
    return [[], items, [...items, ...items]];
  }
  return (contractRegistry.get(schema)?.examples as unknown[] | undefined) ?? [];
}

const strange: unknown[] = [
  null,
  undefined,
  0,
  -1,
  1.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 53,
  true,
  false,
  '',
  ' ',
  'x',
  [],
  {},
  [1],
  { a: 1 },
  'draft',
  'usd',
  'USD',
  'US',
  'us',
  'ZZZ',
  '2026-11-21T10:15:30.123Z',
  '2026-13-01T00:00:00Z',
  '2026-02-30T10:00:00Z',
  '2024-02-29T10:00:00Z',
  '2026-11-21T10:15:30.123+01:00',
  '2026-11-21 10:15:30Z',
  '2026-11-21T24:00:00Z',
  '2026-11-21',
  'https://example.com/a',
  ' https://example.com/a',
  'https://example.com/a ',
  'https://exa\tmple.com',
  'https://example.com/a\n',
  'ftp://example.com',
  'https://',
  'http://[::1]/x',
  'HTTPS://EXAMPLE.COM',
  'http://a..b',
  'a@example.com',
  'not an email',
];

/** A copy of `value` with one change somewhere inside it (or at its root). */
function mutate(value: unknown, next: () => number): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  if (Array.isArray(value)) {
    if (value.length === 0 || next() < 0.2) return next() < 0.5 ? pick(strange) : [...value, pick(strange)];
    const i = Math.floor(next() * value.length);
    return value.map((item, j) => (j === i ? mutate(item, next) : item));
  }
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    const keys = Object.keys(copy);
    const r = next();
    if (r < 0.1) copy[pick(['extra', '__proto__', 'constructor', 'toString'])] = pick(strange);
    else if (r < 0.2 && keys.length > 0) delete copy[pick(keys)];
    else if (r < 0.3 && keys.length > 1) {
      // The same keys in another order (the check compares them with the shape's order first).
      const i = Math.floor(next() * keys.length);
      const moved = keys[i] as string;
      const value = copy[moved];
      delete copy[moved];
      copy[moved] = value;
    } else if (keys.length > 0) {
      const key = pick(keys);
      copy[key] = mutate(copy[key], next);
    }
    // Through JSON, as a body arrives (a `__proto__` key becomes an own key there).
    return next() < 0.5 ? JSON.parse(JSON.stringify(copy) ?? 'null') : copy;
  }
  return next() < 0.8
    ? pick(strange)
    : typeof value === 'string'
      ? `${value}${pick(['', ' ', '\n', 'x'])}`
      : value;
}

const schemas: Array<[string, z.ZodType]> = [
  ['ErrorBody', ErrorBody],
  ['ValidationErrorBody', ValidationErrorBody],
  ...Object.entries(endpoints).flatMap(([group, table]) =>
    Object.entries(table as Record<string, { response?: z.ZodType }>).flatMap(([name, endpoint]) =>
      endpoint.response ? [[`${group}.${name}`, endpoint.response] as [string, z.ZodType]] : [],
    ),
  ),
];

describe('the fast response check', () => {
  it.each(schemas)('%s: accepts its valid examples', (_name, schema) => {
    const examples = examplesOf(schema);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      const body = JSON.parse(JSON.stringify(example));
      expect(schema.safeParse(body).success).toBe(true);
      expect(acceptsAsIs(schema, body)).toBe(true);
    }
  });

  it.each(schemas)('%s: never accepts what zod refuses or would change', (name, schema) => {
    const next = random([...name].reduce((h, c) => Math.imul(h, 31) + c.charCodeAt(0), 7));
    const examples = examplesOf(schema);
    let accepted = 0;
    let refused = 0;
    for (let n = 0; n < 1500; n++) {
      let body = examples[n % examples.length];
      for (let k = 1 + Math.floor(next() * 3); k > 0; k--) body = mutate(body, next);
      if (!acceptsAsIs(schema, body)) continue;
      const result = schema.safeParse(body);
      expect(result.success, JSON.stringify(body)).toBe(true);
      // Node's comparison, prototypes included (vitest's reads a `constructor` key as the class).
      expect(isDeepStrictEqual(result.data, body), JSON.stringify(body)).toBe(true);
      if (result.success) accepted++;
      else refused++;
    }
    expect(refused).toBe(0);
    // The mutations keep some bodies valid: the comparison is not empty.
    expect(accepted).toBeGreaterThan(0);
  });

  it('leaves to zod what it cannot be sure of', () => {
    // Shapes zod changes or reads by rules the compiler does not know: always "no".
    for (const schema of [
      z.string().trim(),
      z.string().default('x'),
      z.union([z.string(), z.number()]),
      z.string().refine(() => true),
      z.object({ a: z.string() }).refine(() => true),
      z.url(),
      z.number().transform((n) => n),
    ] as z.ZodType[])
      expect(acceptsAsIs(schema, 'x') || acceptsAsIs(schema, 1) || acceptsAsIs(schema, { a: 'x' })).toBe(
        false,
      );
    // Near a length limit, zod counts code points: the fast check only answers where that cannot matter.
    expect(acceptsAsIs(z.string().min(2), 'ab')).toBe(false);
    expect(acceptsAsIs(z.string().min(2), 'abcd')).toBe(true);
    // An optional key may be absent; a required one may not.
    const shape = z.object({ a: z.string(), b: z.int().optional() });
    expect(
      [{ a: 'x' }, { a: 'x', b: 1 }, { b: 1 }, { a: 'x', b: 1.5 }].map((v) => acceptsAsIs(shape, v)),
    ).toEqual([true, true, false, false]);
  });

  it('reads number bounds as zod does', () => {
    const numbers = [
      z.number().gt(0).lte(5),
      z.number().gte(0).lt(5).gt(1),
      z.number().gte(1).gt(1),
      z.number().lte(2).lt(2),
      z.int().nonnegative(),
      z.int32().max(10),
      z.uint32(),
      z.number(),
    ];
    const values = [
      -1,
      -0.5,
      0,
      0.5,
      1,
      1.5,
      2,
      4.5,
      5,
      5.5,
      10,
      11,
      2 ** 31,
      2 ** 32,
      2 ** 53,
      -(2 ** 31) - 1,
    ];
    for (const [i, schema] of numbers.entries())
      for (const value of values)
        expect(acceptsAsIs(schema, value), `${i}: ${value}`).toBe(schema.safeParse(value).success);
  });

  it("takes a list's query with a page number as it is, and leaves any other page to zod", () => {
    const values = [1, 2, 0, -1, 1.5, 2 ** 53 - 1, 2 ** 53, Number.NaN, '1', '01', ' 1', '0x10', null, true];
    for (const page of values) {
      const query = { page };
      const accepted = acceptsAsIs(PageQuery, query);
      const result = PageQuery.safeParse(query);
      if (accepted) expect(result.success && isDeepStrictEqual(result.data, query), String(page)).toBe(true);
      expect(accepted, String(page)).toBe(typeof page === 'number' && result.success);
    }
    expect(acceptsAsIs(PageQuery, {})).toBe(true);
  });

  it('reads the keys in any order, and none that for…in does not see', () => {
    const shape = z.object({ a: z.string(), b: z.string(), c: z.int().optional(), d: z.int().optional() });
    const accepted = [
      { a: 'x', b: 'y' },
      { a: 'x', b: 'y', c: 1 },
      { a: 'x', b: 'y', d: 1 },
      { b: 'y', a: 'x' },
      { d: 1, b: 'y', a: 'x', c: 2 },
      { a: 'x', b: 'y', c: 1, d: 2 },
    ];
    for (const value of accepted) expect(acceptsAsIs(shape, value), JSON.stringify(value)).toBe(true);
    const refused = [
      { a: 'x' },
      { b: 'y', c: 1 },
      { a: 'x', b: 'y', c: 1, d: 2, e: 3 },
      { a: 'x', b: 'y', e: 3 },
      { b: 'y', a: 'x', e: 3 },
      { a: 'x', b: 1 },
      { b: 1, a: 'x' },
      { a: 'x', b: 'y', c: 1.5 },
      JSON.parse('{"a":"x","b":"y","__proto__":1}'),
    ];
    for (const value of refused) expect(acceptsAsIs(shape, value), JSON.stringify(value)).toBe(false);
  });

  it('says no to a key zod reads that for…in does not see (non-enumerable, inherited)', () => {
    const shape = z.object({ a: z.string(), b: z.string() });
    const hidden = Object.defineProperty({ a: 'x' }, 'b', { value: 5, enumerable: false });
    expect(shape.safeParse(hidden).success).toBe(false);
    expect(acceptsAsIs(shape, hidden)).toBe(false);
    // Out of order, the same.
    const hiddenFirst = Object.defineProperty({ b: 'y' }, 'a', { value: 5, enumerable: false });
    expect(acceptsAsIs(shape, hiddenFirst)).toBe(false);
    // An optional key zod finds on the object (own but hidden, or inherited) is read, not absent.
    const withOptional = z.object({
      a: z.string(),
      b: z.string().optional(),
      toString: z.string().optional(),
    });
    const optionalHidden = Object.defineProperty({ a: 'x' }, 'b', { value: 5, enumerable: false });
    expect(withOptional.safeParse(optionalHidden).success).toBe(false);
    expect(acceptsAsIs(withOptional, optionalHidden)).toBe(false);
    expect(withOptional.safeParse({ a: 'x' }).success).toBe(false);
    expect(acceptsAsIs(withOptional, { a: 'x' })).toBe(false);
  });

  it('says no while Object.prototype has an enumerable key (every object would seem to have it)', () => {
    const shape = z.object({ a: z.string(), b: z.string() });
    const proto = Object.prototype as Record<string, unknown>;
    proto.b = 'inherited';
    try {
      expect(acceptsAsIs(shape, { a: 'x' })).toBe(false);
    } finally {
      delete proto.b;
    }
    expect(acceptsAsIs(shape, { a: 'x', b: 'y' })).toBe(true);
  });
});

/** Every endpoint's path parameters (the server checks each request's with the fast check first). */
const paramSchemas: Array<[string, z.ZodObject]> = Object.entries(endpoints).flatMap(([group, table]) =>
  Object.entries(table as Record<string, { params: z.ZodObject }>).map(
    ([name, endpoint]) => [`${group}.${name}`, endpoint.params] as [string, z.ZodObject],
  ),
);

/** Values a path parameter may hold, as the router decodes them. */
const PARAM_VALUES = [
  'MsFbHKB4dS2mo-OR',
  'a',
  '',
  ' ',
  'x'.repeat(300),
  'a\u0000b',
  '\ud800',
  '../x',
  'é',
  '🙂',
];

describe('the fast check of path parameters', () => {
  it.each(paramSchemas)('%s: never accepts what zod refuses or would change', (name, schema) => {
    const next = random([...name].reduce((h, c) => Math.imul(h, 31) + c.charCodeAt(0), 11));
    const keys = Object.keys(schema.shape);
    let accepted = 0;
    for (let n = 0; n < 300; n++) {
      const params: Record<string, unknown> = {};
      for (const key of keys) params[key] = PARAM_VALUES[Math.floor(next() * PARAM_VALUES.length)];
      const value = n % 3 === 0 ? mutate(params, next) : params;
      if (!acceptsAsIs(schema, value)) continue;
      const result = schema.safeParse(value);
      expect(result.success, JSON.stringify(value)).toBe(true);
      expect(isDeepStrictEqual(result.data, value), JSON.stringify(value)).toBe(true);
      accepted++;
    }
    // An endpoint without parameters takes only `{}`; the others take some of the values above.
    expect(accepted).toBeGreaterThan(0);
  });
});
