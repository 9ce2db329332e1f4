/**
 * A fast answer to "would this schema accept this JSON value and give it back unchanged?", compiled
 * from the zod schema's own definition (`schema._zod.def`), for the response bodies the SDK checks
 * on every call. It is one-sided: `true` means zod certainly succeeds with an output deep-equal to
 * the input; `false` means "not certain", and the caller runs zod (its errors, its output). So it
 * may refuse what zod accepts (a key zod would strip, a string near a length limit, a shape it does
 * not know) but never accepts what zod refuses or would change. No `eval`: closures only.
 */
import * as z from 'zod';

/** The compiled answer for one schema. */
export type FastCheck = (value: unknown) => boolean;

/** A compiled check, or `undefined` for a schema the compiler does not know (zod decides). */
type Compiled = FastCheck | undefined;

const never: FastCheck = () => false;

/**
 * Schemas whose own check cannot be read from their definition (a custom format, a rewrite, a
 * preprocess), with a predicate that implies "zod accepts it unchanged", given by the module that
 * defines them.
 */
const known = new WeakMap<z.ZodType, FastCheck>();

/**
 * Declares that `schema` (a string schema) accepts, unchanged, every string `plain` returns true
 * for. `plain` may refuse more than the schema does; it must never accept more.
 */
export function knownFastCheck(schema: z.ZodType, plain: (value: string) => boolean): void {
  known.set(schema, (v) => typeof v === 'string' && plain(v));
}

/**
 * Declares that `schema` accepts, unchanged, every value `check` returns true for (of any type).
 * `check` may refuse more than the schema does; it must never accept more.
 */
export function knownValueCheck(schema: z.ZodType, check: FastCheck): void {
  known.set(schema, check);
}

const cache = new WeakMap<z.ZodType, FastCheck>();

/** The schema's compiled check, made on first use and kept with the schema object. */
export function fastCheck(schema: z.ZodType): FastCheck {
  let check = cache.get(schema);
  if (!check) {
    const compiled = compile(schema, new Map());
    check = compiled ? (value) => !inheritsEnumerableKeys() && compiled(value) : never;
    cache.set(schema, check);
  }
  return check;
}

/**
 * Whether every object inherits an enumerable key (someone added one to `Object.prototype`): the
 * object checks read keys with `for…in`, which would then count an inherited key as the object's.
 */
function inheritsEnumerableKeys(): boolean {
  for (const _key in Object.prototype) return true;
  return false;
}

/** Whether zod would certainly accept `value` for `schema` and return it as it is. */
export const acceptsAsIs = (schema: z.ZodType, value: unknown): boolean => fastCheck(schema)(value);

/** String formats whose whole check is their `pattern` (zod: `$ZodStringFormat` with a `def.pattern`). */
const PATTERN_FORMATS = [z.ZodISODateTime, z.ZodISODate, z.ZodEmail, z.ZodUUID, z.ZodGUID];

/** The definition's checks, as their own definitions. */
type CheckDef = z.core.$ZodChecks['_zod']['def'];
const checksOf = (def: { checks?: z.core.$ZodCheck[] }): CheckDef[] =>
  (def.checks ?? []).map((c) => c._zod.def as CheckDef);

function compile(schema: z.ZodType, seen: Map<z.ZodType, Compiled>): Compiled {
  if (seen.has(schema)) return seen.get(schema);
  // A schema met again while compiling itself (a recursive shape) is left to zod.
  seen.set(schema, undefined);
  const check = compileNew(schema, seen);
  seen.set(schema, check);
  return check;
}

function compileNew(schema: z.ZodType, seen: Map<z.ZodType, Compiled>): Compiled {
  const plain = known.get(schema);
  if (plain) return plain;
  const def = (schema as z.core.$ZodType)._zod.def;
  switch (def.type) {
    case 'string':
      return compileString(schema, def as z.core.$ZodStringDef);
    case 'number':
      return compileNumber(def as z.core.$ZodNumberDef & { format?: string });
    case 'boolean':
      return (def as z.core.$ZodBooleanDef).coerce || def.checks?.length
        ? undefined
        : (v) => typeof v === 'boolean';
    case 'enum':
      return compileEnum(def as z.core.$ZodEnumDef);
    case 'literal':
      return compileLiteral(def as z.core.$ZodLiteralDef<z.core.util.Literal>);
    case 'nullable': {
      const inner = compileInner(def as z.core.$ZodNullableDef, seen);
      return inner && ((v) => v === null || inner(v));
    }
    case 'optional': {
      const inner = compileInner(def as z.core.$ZodOptionalDef, seen);
      return inner && ((v) => v === undefined || inner(v));
    }
    case 'array':
      return compileArray(def as z.core.$ZodArrayDef, seen);
    case 'object':
      return compileObject(def as z.core.$ZodObjectDef, seen);
    case 'record':
      return compileRecord(def as z.core.$ZodRecordDef, seen);
    case 'unknown':
    case 'any':
      // zod gives the value itself back, whatever it is; an absent key is another matter (see objects).
      return def.checks?.length ? undefined : () => true;
    default:
      // Unions (zod takes the first option that succeeds, so accepting by a later one would not be
      // certain), pipes, transforms, defaults, lazy, readonly…: zod decides.
      return undefined;
  }
}

function compileInner(
  def: { innerType: z.core.$ZodType; checks?: unknown[] },
  seen: Map<z.ZodType, Compiled>,
) {
  return def.checks?.length ? undefined : compile(def.innerType as z.ZodType, seen);
}

function compileString(schema: z.ZodType, def: z.core.$ZodStringDef): Compiled {
  if (def.coerce) return undefined;
  const tests: Array<(v: string) => boolean> = [];
  // The patterns among `tests` that neither a `g` nor a `y` flag makes stateful.
  const patterns: RegExp[] = [];
  const format = (def as { format?: string }).format;
  if (format !== undefined) {
    // The schema is itself a format check; only those that are exactly their pattern are read.
    const pattern = (def as { pattern?: RegExp }).pattern;
    if (!pattern || !PATTERN_FORMATS.some((Format) => schema instanceof Format)) return undefined;
    tests.push(patternTest(pattern, patterns));
  }
  for (const check of checksOf(def)) {
    switch (check.check) {
      case 'min_length':
        // zod counts code points near the limit; a string of twice as many UTF-16 units (or any
        // non-empty one for a minimum of 1) certainly has enough of them.
        {
          const min = check.minimum;
          tests.push((v) => v.length >= 2 * min || (min <= 1 && v.length >= min));
        }
        break;
      case 'max_length': {
        // Code points are never more than UTF-16 units.
        const max = check.maximum;
        tests.push((v) => v.length <= max);
        break;
      }
      case 'string_format':
        if (check.format !== 'regex' || !check.pattern) return undefined;
        tests.push(patternTest(check.pattern, patterns));
        break;
      default:
        // Rewrites (trim, case), refinements, other formats: zod decides.
        return undefined;
    }
  }
  if (tests.length === 0) return (v) => typeof v === 'string';
  // A pattern alone (most formats) is tested here, one closure call fewer per value.
  if (patterns.length === 1 && tests.length === 1) {
    const [pattern] = patterns as [RegExp];
    return (v) => typeof v === 'string' && pattern.test(v);
  }
  if (tests.length === 1) {
    const [test] = tests as [(v: string) => boolean];
    return (v) => typeof v === 'string' && test(v);
  }
  return (v) => typeof v === 'string' && tests.every((test) => test(v));
}

/** zod's own test of a pattern (it resets `lastIndex`, which a `g` or `y` flag makes matter). */
function patternTest(pattern: RegExp, plain: RegExp[]): (v: string) => boolean {
  if (!pattern.global && !pattern.sticky) {
    plain.push(pattern);
    return (v) => pattern.test(v);
  }
  return (v) => {
    pattern.lastIndex = 0;
    return pattern.test(v);
  };
}

/** The integer formats: the value must be an integer inside the range. */
const INTEGER_RANGES: Record<string, readonly [number, number]> = {
  safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
};

function compileNumber(def: z.core.$ZodNumberDef & { format?: string }): Compiled {
  if (def.coerce) return undefined;
  // The checks folded into one test: whether it must be an integer, and its bounds.
  let integer = false;
  const lower: Array<{ value: number; inclusive: boolean }> = [];
  const upper: Array<{ value: number; inclusive: boolean }> = [];
  if (def.format !== undefined) {
    const range = INTEGER_RANGES[def.format];
    if (!range) return undefined;
    integer = true;
    lower.push({ value: range[0], inclusive: true });
    upper.push({ value: range[1], inclusive: true });
  }
  for (const check of checksOf(def)) {
    if (check.check === 'greater_than' && typeof check.value === 'number')
      lower.push({ value: check.value, inclusive: check.inclusive });
    else if (check.check === 'less_than' && typeof check.value === 'number')
      upper.push({ value: check.value, inclusive: check.inclusive });
    else return undefined;
  }
  // The tightest bound on each side, read once per value.
  const [min, minInclusive] = tightest(lower, (a, b) => a > b);
  const [max, maxInclusive] = tightest(upper, (a, b) => a < b);
  return (v) =>
    typeof v === 'number' &&
    Number.isFinite(v) &&
    (!integer || Number.isInteger(v)) &&
    (minInclusive ? v >= min : v > min) &&
    (maxInclusive ? v <= max : v < max);
}

/**
 * The bound of `bounds` that `tighter` prefers (an exclusive one over an inclusive one of the same
 * value), as `[value, inclusive]`; no bound is an inclusive infinity.
 */
function tightest(
  bounds: Array<{ value: number; inclusive: boolean }>,
  tighter: (a: number, b: number) => boolean,
): [number, boolean] {
  let value = tighter(0, 1) ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  let inclusive = true;
  for (const bound of bounds)
    if (tighter(bound.value, value) || (bound.value === value && !bound.inclusive))
      [value, inclusive] = [bound.value, bound.inclusive];
  return [value, inclusive];
}

function compileEnum(def: z.core.$ZodEnumDef): Compiled {
  if (def.checks?.length) return undefined;
  const entries = Object.entries(def.entries);
  // `z.enum([...])` only: a TypeScript enum's entries are read by rules of zod's own.
  if (!entries.every(([key, value]) => key === value)) return undefined;
  const values = new Set<unknown>(entries.map(([, value]) => value));
  return (v) => values.has(v);
}

function compileLiteral(def: z.core.$ZodLiteralDef<z.core.util.Literal>): Compiled {
  if (def.checks?.length) return undefined;
  if (!def.values.every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v)))
    return undefined;
  const values = new Set<unknown>(def.values);
  return (v) => values.has(v);
}

function compileArray(def: z.core.$ZodArrayDef, seen: Map<z.ZodType, Compiled>): Compiled {
  if (def.checks?.length) return undefined;
  const element = compile(def.element as z.ZodType, seen);
  if (!element) return undefined;
  return (v) => {
    if (!Array.isArray(v)) return false;
    for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
    return true;
  };
}

/** An object as `JSON.parse` makes it (zod reads other objects by rules of its own). */
const isJsonObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;

function compileObject(def: z.core.$ZodObjectDef, seen: Map<z.ZodType, Compiled>): Compiled {
  if (def.checks?.length) return undefined;
  const keys = Object.keys(def.shape);
  if (keys.includes('__proto__')) return undefined;
  const checks: FastCheck[] = [];
  const fields = new Map<string, FastCheck>();
  // zod leaves out an absent key only when its schema is an `optional()`.
  const optional: boolean[] = [];
  for (const key of keys) {
    const field = def.shape[key] as z.ZodType;
    const check = compile(field, seen);
    if (!check) return undefined;
    checks.push(check);
    fields.set(key, check);
    optional.push((field as z.core.$ZodType)._zod.def.type === 'optional');
  }
  const count = keys.length;
  /**
   * Whether the shape's keys from `from` on, none of which `for…in` met, are absent as zod sees
   * them: not `in` the object (a non-enumerable own key or an inherited one is read by zod), and
   * optional.
   */
  const absentFrom = (v: Record<string, unknown>, from: number): boolean => {
    for (let i = from; i < count; i++) if (!optional[i] || (keys[i] as string) in v) return false;
    return true;
  };
  /** The object's keys in any order: each looked up in the shape. */
  const inAnyOrder = (v: Record<string, unknown>): boolean => {
    let present = 0;
    for (const key in v) {
      const check = fields.get(key);
      // Any other key (zod would strip it, or refuse it), `__proto__` included: zod decides.
      if (check === undefined || !check(v[key])) return false;
      present++;
    }
    if (present === count) return true;
    // The keys zod reads (`in`) must be those met (enumerable own), and the others optional.
    let read = 0;
    for (let i = 0; i < count; i++)
      if ((keys[i] as string) in v) read++;
      else if (!optional[i]) return false;
    return read === present;
  };
  return (v) => {
    if (!isJsonObject(v)) return false;
    // The object's own keys, in its own order (V8 reads `v[key]` fast inside `for…in`). A body from
    // `JSON.parse` has them in the shape's order: each is compared with the next key of the shape.
    let i = 0;
    for (const key in v) {
      if (key !== keys[i]) return inAnyOrder(v);
      if (!(checks[i] as FastCheck)(v[key])) return false;
      i++;
    }
    return i === count || absentFrom(v, i);
  };
}

function compileRecord(def: z.core.$ZodRecordDef, seen: Map<z.ZodType, Compiled>): Compiled {
  if (def.checks?.length) return undefined;
  // Keys: a plain `z.string()` takes every key as it is.
  const keyDef = (def.keyType as z.core.$ZodType)._zod.def as z.core.$ZodStringDef & { format?: string };
  if (keyDef.type !== 'string' || keyDef.coerce || keyDef.format !== undefined || keyDef.checks?.length)
    return undefined;
  const value = compile(def.valueType as z.ZodType, seen);
  if (!value) return undefined;
  return (v) => {
    if (!isJsonObject(v)) return false;
    for (const key of Object.keys(v)) {
      // zod leaves a `__proto__` key out of its output.
      if (key === '__proto__' || !value(v[key])) return false;
    }
    return true;
  };
}
