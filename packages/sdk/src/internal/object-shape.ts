import * as z from 'zod';

/**
 * The shape of an object schema, or of the object under a transform (a pipe whose input is the
 * object, as a payload that normalises its fields is); `undefined` for any other schema.
 */
export function objectShape(schema: z.ZodType): Readonly<Record<string, z.ZodType>> | undefined {
  if (schema instanceof z.ZodObject) return schema.shape as Record<string, z.ZodType>;
  if (schema instanceof z.ZodPipe) return objectShape(schema.in as z.ZodType);
  return undefined;
}
