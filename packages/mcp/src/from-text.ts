/**
 * Numbers and booleans a model sends as text. Models often quote them (`"cpm_amount": "500"`,
 * `"push_notifications_enabled": "true"`); the query's `page` was taken so already (its schema reads
 * the digits of a URL), every other number and boolean was refused. The tool layer takes any of
 * them, before the arguments are checked, where the advertised input schema says a number, an
 * integer or a boolean and no string: one rule for every argument, path, query and body, nested or
 * not. The SDK and the API stay strict; the schema still says `number` (the server's instructions
 * say that text is taken).
 */

import { booleanFromText, isOneOrZeroEnum, numberFromText, oneOrZeroFromBoolean } from '@app/schemas';

type JsonSchema = Readonly<Record<string, unknown>>;

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The schema and its `anyOf`/`oneOf`/`allOf` variants, nested ones included. */
function variantsOf(schema: JsonSchema): JsonSchema[] {
  const nested = [schema.anyOf, schema.oneOf, schema.allOf].flatMap((list) =>
    Array.isArray(list) ? list.filter(isSchema).flatMap(variantsOf) : [],
  );
  return [schema, ...nested];
}

/** The JSON types a value at this place may have (`type`, a list of types, or the variants'). */
function typesOf(schema: JsonSchema): Set<string> {
  const types = new Set<string>();
  for (const variant of variantsOf(schema)) {
    const type = variant.type;
    for (const name of Array.isArray(type) ? type : [type]) if (typeof name === 'string') types.add(name);
    if (Array.isArray(variant.enum)) for (const value of variant.enum) types.add(typeof value);
    if ('const' in variant) types.add(typeof variant.const);
  }
  return types;
}

/** A string where the schema takes no string but a number or a boolean: that value, if it is exactly one. */
function scalarOf(schema: JsonSchema, text: string): unknown {
  const types = typesOf(schema);
  if (types.has('string')) return text;
  // The CLI's rule for its flags too (`@app/schemas`): `1e999`, `0x1F4`, ` 500` stay text.
  const number = types.has('number') || types.has('integer') ? numberFromText(text) : undefined;
  if (number !== undefined) return number;
  const boolean = types.has('boolean') ? booleanFromText(text) : undefined;
  return boolean ?? text;
}

/**
 * A field whose values are the wire's `"1"` and `"0"` (`purge_logo`, `purge_banner_image`), and
 * no boolean of its own.
 */
const isOneOrZeroFlag = (schema: JsonSchema): boolean =>
  !typesOf(schema).has('boolean') && variantsOf(schema).some((variant) => isOneOrZeroEnum(variant.enum));

/** The schema of a property (or of the items): the first variant that has one. */
function partOf(schema: JsonSchema, pick: (variant: JsonSchema) => unknown): JsonSchema | undefined {
  for (const variant of variantsOf(schema)) {
    const part = pick(variant);
    if (isSchema(part)) return part;
  }
  return undefined;
}

/**
 * `value` with each string that stands where `schema` (a JSON Schema, as `tools/list` gives it)
 * takes a number or a boolean and no string turned into that number or boolean, when the string
 * is exactly one: a JSON number that is finite (`"500"`, `"-2.5"`, `"1e3"`), or `"true"`/`"false"`;
 * and where it takes the wire's `"1"`/`"0"` flag, `true`/`false` (JSON or text) as `"1"`/`"0"`.
 * Anything else is left as it is, for the schema's own check to refuse as it refused before: an
 * integer field given `"2.5"` is 2.5, not an integer. Keys the schema does not know are left too
 * (the check names them).
 */
export function typedFromText(schema: JsonSchema, value: unknown): unknown {
  // A `"1"`/`"0"` flag (`purge_logo`) takes what a boolean takes: `true`/`false`, as JSON or text.
  const flag = isOneOrZeroFlag(schema) ? oneOrZeroFromBoolean(value) : undefined;
  if (flag !== undefined) return flag;
  if (typeof value === 'string') return scalarOf(schema, value);
  if (Array.isArray(value)) {
    const items = partOf(schema, (variant) => variant.items);
    return items ? value.map((item) => typedFromText(items, item)) : value;
  }
  if (!isSchema(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => {
      const part = partOf(schema, (variant) =>
        isSchema(variant.properties) && Object.hasOwn(variant.properties, key)
          ? variant.properties[key]
          : undefined,
      );
      return [key, part ? typedFromText(part, field) : field];
    }),
  );
}
