import type { EntityData } from '@mikro-orm/core';
import type { Em } from '../../db/database.js';

/**
 * Which payload fields a write stores as they are, and under which entity property:
 * `{ content_type: 'contentType', … }`. Typed against both sides, so a renamed field or property
 * fails to compile.
 */
export type FieldMap<Input, Entity> = { readonly [K in keyof Input]?: keyof Entity & string };

/**
 * Assigns the fields of `input` that are present (not `undefined`) onto `entity` through
 * MikroORM's `assign`, each under the property `fields` maps it to. A field left out of a PATCH
 * keeps its stored value; an explicit `null` clears it.
 */
export function assignDefined<Input extends object, Entity extends object>(
  em: Em,
  entity: Entity,
  input: Input,
  fields: FieldMap<Input, Entity>,
): void {
  const data: Record<string, unknown> = {};
  for (const [field, property] of Object.entries(fields) as Array<[keyof Input, string]>) {
    if (input[field] !== undefined) data[property] = input[field];
  }
  // The map is checked against both types above; the values are the payload's, already validated.
  em.assign(entity, data as EntityData<Entity> as never);
}
