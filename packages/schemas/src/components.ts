/**
 * The named schemas of the published contract: each resource, payload and error body gets a
 * stable name, a description and an example — given beside its definition, with `component()` —
 * and the OpenAPI document refers to it with `$ref` (so generators produce named types). A
 * registry of our own, not zod's global one: this module may be evaluated more than once in a
 * process (test isolation) and ids must not collide.
 */
import { z } from 'zod';

export interface ComponentMeta {
  id: string;
  description: string;
  examples: unknown[];
  [key: string]: unknown;
}

/** Registry of the named schemas (`components.schemas` of the OpenAPI document). */
export const contractRegistry = z.registry<ComponentMeta>();

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
  return schema && meta ? { schema, meta } : undefined;
}
