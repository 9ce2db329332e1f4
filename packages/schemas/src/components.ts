/**
 * The named schemas of the published contract: each resource, payload and error body gets a
 * stable name, a description and an example — given beside its definition, with `component()` —
 * and the OpenAPI document refers to it with `$ref` (so generators produce named types). A
 * registry of our own, not zod's global one: this module may be evaluated more than once in a
 * process (test isolation) and ids must not collide.
 */
import * as z from 'zod';

export interface ComponentMeta {
  id: string;
  description: string;
  examples: unknown[];
  [key: string]: unknown;
}

/**
 * What the published JSON Schema says of a field beyond its zod checks, merged where the field
 * stands (no component of its own): e.g. the `enum` of a set the server checks in code.
 */
export interface FieldMeta {
  id?: undefined;
  examples?: undefined;
  description: string;
  enum?: readonly (string | number)[];
  [key: string]: unknown;
}

/**
 * Registry of the contract's schemas: the named ones (`components.schemas` of the OpenAPI
 * document) and the annotated fields ({@link annotate}).
 */
export const contractRegistry = z.registry<ComponentMeta | FieldMeta>();

const byId = new Map<string, z.ZodType>();

/** Names `schema` in the published contract: its component id, description and examples. */
export function component<T extends z.ZodType>(schema: T, meta: ComponentMeta): T {
  contractRegistry.add(schema, meta);
  byId.set(meta.id, schema);
  return schema;
}

/** The schema named `id` in the contract, with its metadata; undefined when there is none. */
export function componentById(id: string): { schema: z.ZodType; meta: ComponentMeta } | undefined {
  const schema = byId.get(id);
  const meta = schema && contractRegistry.get(schema);
  return schema && meta?.id !== undefined ? { schema, meta: meta as ComponentMeta } : undefined;
}

/** Sets up to this size are listed inline everywhere; longer ones only in the OpenAPI document. */
const INLINE_ENUM_MAX = 16;

/**
 * Annotates a field's schema for the published JSON Schema: the OpenAPI document reads
 * {@link contractRegistry}. Its description also goes to zod's global registry, which a plain
 * `z.toJSONSchema` reads (the CLI's flags, the MCP tools' inputs), with its `enum` when the set is
 * short (a platform); a long set (162 currencies, 249 countries) would fill a flag's help and a
 * tool listing, so those surfaces get `inlinePattern` instead (the form of a code, which a model
 * or a shell user knows) and take the sets from `CURRENCY_CODES` and `COUNTRY_CODES` where they
 * want them. With an `id`, the field is a component of the OpenAPI document ({@link component}),
 * so that generated clients name its set once. Returns the same schema.
 */
export function annotate<Schema extends z.ZodType>(
  schema: Schema,
  { inlinePattern, ...meta }: (FieldMeta | ComponentMeta) & { inlinePattern?: string },
): Schema {
  // A named set (`CurrencyCode`) is a component of its own, which every use refers to.
  if (meta.id === undefined) contractRegistry.add(schema, meta);
  else component(schema, meta);
  const values = meta.enum as FieldMeta['enum'];
  const short = values && values.length <= INLINE_ENUM_MAX;
  z.globalRegistry.add(schema, {
    description: meta.description,
    ...(short ? { enum: values } : {}),
    ...(!short && inlinePattern ? { pattern: inlinePattern } : {}),
  });
  return schema;
}
