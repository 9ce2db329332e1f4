import { z } from 'zod';

/** A named schema of the contract: a component of the OpenAPI document, referred to by `$ref`. */
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
 * document) and the annotated fields. A registry of our own, not zod's global one: this module
 * may be evaluated more than once in a process (test isolation) and ids must not collide.
 */
export const contractRegistry = z.registry<ComponentMeta | FieldMeta>();

/**
 * Annotates a field's schema for the published JSON Schema: the OpenAPI document reads
 * {@link contractRegistry}. Its description also goes to zod's global registry, which a plain
 * `z.toJSONSchema` reads (the CLI's flags, the MCP tools' inputs); its `enum` does not, as those
 * surfaces print an enum inline (162 currencies in a flag's help): they take the sets from
 * `CURRENCY_CODES` and `COUNTRY_CODES` where they want them. Returns the same schema.
 */
export function annotate<Schema extends z.ZodType>(schema: Schema, meta: FieldMeta): Schema {
  contractRegistry.add(schema, meta);
  z.globalRegistry.add(schema, { description: meta.description });
  return schema;
}
