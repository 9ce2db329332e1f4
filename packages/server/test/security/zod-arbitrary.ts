/**
 * fast-check arbitraries derived from the zod 4 payload schemas of the endpoint table: a walk of
 * `schema.def` that yields mostly-valid values, mixed (when asked) with hostile ones at every
 * node, and a JSON writer that can put text no JavaScript value serializes to (`1e309`, `-0`)
 * into a request body.
 */
import fc from 'fast-check';
import type * as z from 'zod';

/** Literal JSON text placed as-is in a serialized body. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** `JSON.stringify` that also writes {@link RawJson} and own `__proto__` keys. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .map((k) => `${JSON.stringify(k)}:${toJsonText((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** An object with own properties of any name, `__proto__` included (as JSON.parse makes them). */
export function ownObject(entries: Array<[string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true });
  return out;
}

export function nested(depth: number, kind: 'object' | 'array'): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = kind === 'object' ? { a: v } : [v];
  return v;
}

export const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype'] as const;
const polluter = () => ownObject([['polluted', 'yes']]);

const UNICODE = [
  '😀👩‍👩‍👧‍👦🏳️‍🌈',
  '\u202Eevil\u202C txt.exe',
  'שלום עולם',
  'مرحبا',
  'a\u0000b',
  '\u0000',
  '\uD800',
  'x\uDFFFy',
  '\uFEFFbom',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫ',
  'ｆｕｌｌｗｉｄｔｈ',
  '\u2028\u2029',
  '\t\r\n',
];
const INJECTION = [
  "' OR '1'='1",
  "'; drop table users; --",
  '"; select pg_sleep(1); --',
  '\\',
  '%',
  '_',
  '$1',
  '?',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  '[x](javascript:alert(1))',
  `{{7*7}}\${7*7}`,
  '../../../../etc/passwd',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '9007199254740993',
  '   ',
  '',
];
const HUGE = 'x'.repeat(100 * 1024);
const HUGE_UNICODE = '😀'.repeat(25 * 1024);

export interface ArbitraryContext {
  /** Strings that carry meaning here: ids of the world (other tenants' too), codes, URLs. */
  strings: readonly string[];
  /** Values for fields of this name (e.g. `user_id`: ids of real users), next to the schema's. */
  hints?: Readonly<Record<string, fc.Arbitrary<unknown>>>;
}

export function hostileString(ctx: ArbitraryContext): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(HUGE, HUGE_UNICODE, `${HUGE}<script>`),
    fc.constantFrom(...UNICODE),
    fc.constantFrom(...INJECTION),
    fc.constantFrom(...ctx.strings),
    fc.string({ unit: 'binary', maxLength: 40 }),
  );
}

/** Any hostile JSON value: wrong types, bounds, raw number text, nesting, pollution keys. */
export function hostileValue(ctx: ArbitraryContext): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: hostileString(ctx) },
    fc.constantFrom(
      null,
      true,
      false,
      0,
      -1,
      1.5,
      2 ** 53,
      -(2 ** 53),
      2 ** 31,
      2 ** 63,
      Number.MAX_VALUE,
      1e-300,
    ),
    fc.constantFrom(
      new RawJson('1e309'),
      new RawJson('-1e309'),
      new RawJson('-0'),
      new RawJson('1e-400'),
      new RawJson('9007199254740993'),
      new RawJson('123456789012345678901234567890'),
      new RawJson('0.1e1'),
    ),
    fc.constantFrom([], {}, [{}], [null], ['a', 1]),
    fc.constantFrom(nested(1000, 'object'), nested(1000, 'array')),
    fc.constantFrom(...POLLUTION_KEYS).map((k) => ownObject([[k, polluter()]])),
    fc.jsonValue({ maxDepth: 2 }),
  );
}

/** The schema under optional/nullable/default wrappers and pipes (what a value must look like). */
function core(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    const def = s.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
    if ((def.type === 'optional' || def.type === 'default' || def.type === 'nullable') && def.innerType)
      s = def.innerType;
    else if (def.type === 'pipe' && def.in) s = def.in;
    else return s;
  }
}

interface Bounds {
  min?: number;
  max?: number;
  format?: string;
}
function boundsOf(schema: z.ZodType): Bounds {
  const out: Bounds = {};
  const def = schema.def as { checks?: Array<{ _zod: { def: Record<string, unknown> } }>; format?: string };
  if (def.format) out.format = def.format;
  for (const c of def.checks ?? []) {
    const d = c._zod.def;
    if (d.check === 'min_length' || (d.check === 'greater_than' && d.inclusive))
      out.min = Number(d.minimum ?? d.value);
    if (d.check === 'max_length' || (d.check === 'less_than' && d.inclusive))
      out.max = Number(d.maximum ?? d.value);
    if (d.check === 'string_format' && typeof d.format === 'string') out.format = d.format;
  }
  return out;
}

/** Numbers at and just past a field's bounds, and the usual trouble-makers. */
function numberEdges(b: Bounds): unknown[] {
  const edges: unknown[] = [
    2 ** 53,
    -(2 ** 53),
    2 ** 31,
    -1,
    0.5,
    'NaN',
    new RawJson('1e309'),
    new RawJson('-0'),
  ];
  if (b.min !== undefined) edges.push(b.min, b.min - 1);
  if (b.max !== undefined) edges.push(b.max, b.max + 1);
  return edges;
}

const platformUrl = fc
  .tuple(
    fc.constantFrom(
      'https://www.youtube.com/@',
      'https://youtube.com/channel/',
      'https://x.com/',
      'https://twitch.tv/',
    ),
    fc.stringMatching(/^[A-Za-z0-9_]{1,20}$/),
  )
  .map(([prefix, handle]) => prefix + handle);

/** Value hints by field name, where the schema's rule is a refinement a random string never meets. */
const FIELD_HINTS: Record<string, fc.Arbitrary<unknown>> = {
  account_url: platformUrl,
  platform_id: fc.constantFrom('youtube', 'x', 'twitch', 'tiktok', 'instagram'),
  // zod's e-mail rule is stricter than RFC 5322 (fast-check's emailAddress): simple addresses.
  email: fc.stringMatching(/^[a-z0-9]{1,12}(\.[a-z0-9]{1,8})?@[a-z0-9]{1,10}\.(com|test|org)$/),
};

export interface Walk {
  ctx: ArbitraryContext;
  /** Relative weight of a hostile value at each node (0: only valid-looking values). */
  hostility: number;
}

/** An arbitrary for `schema`; `field` is the object key it sits under (for the hints). */
export function arbitraryOf(schema: z.ZodType, walk: Walk, field?: string): fc.Arbitrary<unknown> {
  const valid = validArbitrary(schema, walk, field);
  if (walk.hostility === 0) return valid;
  return fc.oneof(
    { weight: 20, arbitrary: valid },
    { weight: walk.hostility, arbitrary: hostileValue(walk.ctx) },
  );
}

function validArbitrary(schema: z.ZodType, walk: Walk, field?: string): fc.Arbitrary<unknown> {
  const def = schema.def as unknown as Record<string, unknown> & { type: string };
  const hint = field ? (walk.ctx.hints?.[field] ?? FIELD_HINTS[field]) : undefined;
  switch (def.type) {
    case 'optional':
    case 'default':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return arbitraryOf(def.innerType as z.ZodType, walk, field);
    case 'nullable':
      return fc.oneof(arbitraryOf(def.innerType as z.ZodType, walk, field), fc.constant(null));
    case 'pipe':
      return arbitraryOf(def.in as z.ZodType, walk, field);
    case 'object': {
      const shape = def.shape as Record<string, z.ZodType>;
      const required = Object.keys(shape).filter(
        (k) => !['optional', 'default'].includes(shape[k]?.def.type as string),
      );
      const fields = Object.fromEntries(Object.entries(shape).map(([k, s]) => [k, arbitraryOf(s, walk, k)]));
      const record = fc.record(fields, { requiredKeys: required });
      if (walk.hostility === 0) return record;
      // Unknown and prototype-polluting keys next to the known ones.
      return fc
        .tuple(
          record,
          fc.option(fc.constantFrom('unknown_field', 'id', 'organization_id', ...POLLUTION_KEYS)),
        )
        .map(([value, extra]) =>
          extra === null
            ? value
            : ownObject([...Object.entries(value), [extra, extra === 'id' ? 'x' : polluter()]]),
        );
    }
    case 'string':
      return hint ?? stringArbitrary(schema, walk);
    case 'number': {
      const b = boundsOf(schema);
      const integer = b.format === 'safeint' || b.format === 'int32';
      const min = Math.max(b.min ?? -(2 ** 40), Number.MIN_SAFE_INTEGER);
      const max = Math.min(b.max ?? 2 ** 40, Number.MAX_SAFE_INTEGER);
      const inRange = integer
        ? fc.integer({ min, max })
        : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
      const edges = fc.constantFrom(...[min, max].filter((n) => n >= min && n <= max));
      const valid = fc.oneof(inRange, edges);
      return walk.hostility === 0
        ? valid
        : fc.oneof({ weight: 4, arbitrary: valid }, fc.constantFrom(...numberEdges(b)));
    }
    case 'boolean':
      return walk.hostility === 0
        ? fc.boolean()
        : fc.oneof({ weight: 4, arbitrary: fc.boolean() }, fc.constantFrom('true', 1, 'yes'));
    case 'enum':
      return hint ?? fc.constantFrom(...Object.values(def.entries as Record<string, string>));
    case 'literal':
      return fc.constantFrom(...(def.values as unknown[]));
    case 'null':
      return fc.constant(null);
    case 'array': {
      const b = boundsOf(schema);
      const element = arbitraryOf(def.element as z.ZodType, walk);
      const array = fc.array(element, { minLength: b.min ?? 0, maxLength: Math.min(b.max ?? 6, 6) });
      if (walk.hostility === 0 || b.max === undefined) return array;
      return fc.oneof(
        { weight: 6, arbitrary: array },
        fc.constant(Array.from({ length: b.max + 1 }, () => 'US')),
      );
    }
    case 'union':
      return fc.oneof(...(def.options as z.ZodType[]).map((o) => arbitraryOf(o, walk, field)));
    case 'record':
      return fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
    case 'unknown':
    case 'any':
      return fc.jsonValue({ maxDepth: 2 });
    default:
      throw new Error(`zod type '${def.type}' has no arbitrary yet`);
  }
}

function stringArbitrary(schema: z.ZodType, walk: Walk): fc.Arbitrary<string> {
  const b = boundsOf(schema);
  const min = b.min ?? 0;
  const max = Math.min(b.max ?? 40, 40);
  const passes = (s: string) => schema.safeParse(s).success;
  const samples = walk.ctx.strings.filter(passes);
  const random = fc.string({ unit: 'grapheme', minLength: min, maxLength: Math.max(min, max) });
  const fallback = samples[0];
  // A random string that breaks a refinement (a currency, a URL) becomes a known-good sample.
  const repaired = fallback === undefined ? random : random.map((s) => (passes(s) ? s : fallback));
  const valid = samples.length > 0 ? fc.oneof(fc.constantFrom(...samples), repaired) : repaired;
  if (walk.hostility === 0) return valid;
  return fc.oneof({ weight: 5, arbitrary: valid }, hostileString(walk.ctx));
}

/** A deterministic small valid value (required fields only), or undefined when none is found. */
export function exampleOf(schema: z.ZodType, ctx: ArbitraryContext): unknown {
  const s = core(schema);
  const def = s.def as unknown as Record<string, unknown> & { type: string };
  const candidates: unknown[] = (() => {
    switch (def.type) {
      case 'object': {
        const shape = def.shape as Record<string, z.ZodType>;
        const value: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(shape)) {
          if (['optional', 'default'].includes(v.def.type)) continue;
          value[k] = exampleOf(v, ctx);
        }
        return [value];
      }
      case 'string':
        return ['Example', 'user@example.com', ...ctx.strings];
      case 'number':
        return [boundsOf(s).min ?? 0, 1];
      case 'boolean':
        return [false, true];
      case 'enum':
        return Object.values(def.entries as Record<string, string>);
      case 'literal':
        return def.values as unknown[];
      case 'array':
        return [[], [exampleOf(def.element as z.ZodType, ctx)]];
      case 'union':
        return (def.options as z.ZodType[]).map((o) => exampleOf(o, ctx));
      default:
        return [null, {}];
    }
  })();
  return candidates.find((c) => schema.safeParse(c).success);
}
