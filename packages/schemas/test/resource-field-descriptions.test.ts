/**
 * `RESOURCE_FIELD_DESCRIPTIONS` says what every field of every resource the API returns means, and
 * nothing else: each endpoint's response (a list's item), and each object within one (a member's
 * `user`), has an entry whose fields are exactly its schema's.
 */
import { expect, test } from 'vitest';
import * as z from 'zod';
import {
  publicEndpoints,
  RESOURCE_FIELD_DESCRIPTIONS,
  resourceFieldDescriptions,
  testHelperEndpointList,
  withFieldDescriptions,
} from '../src/index.js';

/** Each object schema an answer holds, with where it is (`members.update.user`). */
function resourcesOf(schema: z.ZodType, where: string, found: Map<z.ZodObject, string>): void {
  const shown = schema instanceof z.ZodNullable || schema instanceof z.ZodOptional ? schema.unwrap() : schema;
  if (shown instanceof z.ZodArray) resourcesOf(shown.element as z.ZodType, where, found);
  if (!(shown instanceof z.ZodObject)) return;
  found.set(shown, where);
  for (const [field, inner] of Object.entries(shown.shape))
    resourcesOf(inner as z.ZodType, `${where}.${field}`, found);
}

const resources = new Map<z.ZodObject, string>();
for (const e of [...publicEndpoints, ...testHelperEndpointList])
  if (e.response) resourcesOf(e.response as z.ZodType, e.name, resources);

test('every resource an endpoint returns is described, field by field, and nothing else is', () => {
  expect(resources.size).toBeGreaterThan(15);
  for (const [schema, where] of resources)
    expect(Object.keys(resourceFieldDescriptions(schema) ?? {}), where).toEqual(Object.keys(schema.shape));
  const used = new Set([...resources.keys()].map(resourceFieldDescriptions));
  const unused = Object.entries(RESOURCE_FIELD_DESCRIPTIONS).filter(([, fields]) => !used.has(fields));
  expect(unused.map(([name]) => name)).toEqual([]);
});

test('a description is one line of text that says something', () => {
  for (const [name, fields] of Object.entries(RESOURCE_FIELD_DESCRIPTIONS))
    for (const [field, description] of Object.entries(fields)) {
      expect(description, `${name}.${field}`).toMatch(/^\S.+\S$/);
      expect(description, `${name}.${field}`).not.toMatch(/[\n*]\//);
    }
});

test("a JSON Schema of a resource gets its fields' descriptions, in the objects within too", () => {
  const membership = publicEndpoints.find((e) => e.name === 'members.list')?.response as z.ZodType;
  const json = withFieldDescriptions(z.toJSONSchema(membership, { io: 'output' }) as never, membership) as {
    items: {
      properties: Record<
        string,
        { description?: string; properties?: Record<string, { description?: string }> }
      >;
    };
  };
  expect(json.items.properties.is_owner?.description).toBe(RESOURCE_FIELD_DESCRIPTIONS.Membership?.is_owner);
  expect(json.items.properties.user?.properties?.email?.description).toBe("The user's e-mail address");
  // In place of what the field's type says elsewhere (the id's "The membership's id").
  expect(json.items.properties.id?.description).toBe(RESOURCE_FIELD_DESCRIPTIONS.Membership?.id);
});
