import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { throwIfInvalid } from '../http/errors.js';

/** A file received in a multipart request, held in memory (uploads are a few MiB at most). */
export interface UploadedFile {
  data: Buffer;
  filename: string;
  mimetype: string;
}

/** `organization[name]` → `['organization', 'name']`; `collab[countries][]` → `[..., 'countries', '']`. */
export function parseFieldName(name: string): string[] {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(name);
  if (!match) return [name];
  const rest = [...(match[2] as string).matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] as string);
  return [match[1] as string, ...rest];
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let s = schema;
  for (let i = 0; s && i < 10; i++) {
    const def = s.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
    if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default') s = def.innerType;
    else if (def.type === 'pipe') s = def.in;
    else return s;
  }
  return s;
}

/** Form fields are strings; give booleans and integers their JSON types where the schema wants them. */
function coerce(schema: z.ZodType | undefined, value: string): unknown {
  const type = unwrap(schema)?.def.type;
  if (type === 'boolean')
    return value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value;
  if (type === 'number' && /^-?\d+$/.test(value)) return Number(value);
  return value;
}

function shapeOf(schema: z.ZodType | undefined): Record<string, z.ZodType> {
  const s = unwrap(schema);
  return s && s.def.type === 'object' ? (s as z.ZodObject).shape : {};
}

/**
 * `preValidation` hook body for endpoints that take files: turns a Rails-style multipart form
 * into the same object a JSON request would carry, and keeps the files aside (they are checked
 * and stored by the resource's service). Files over `maxBytes` are a `422` on their field.
 */
export async function readMultipartForm(
  request: FastifyRequest,
  spec: { key: string | null; schema: z.ZodType; files: readonly string[] },
  maxBytes: number,
): Promise<{ body: Record<string, unknown>; files: Record<string, UploadedFile> }> {
  const shape = shapeOf(spec.schema);
  const inner: Record<string, unknown> = {};
  const files: Record<string, UploadedFile> = {};
  const errors: Record<string, string[]> = {};
  const options = {
    limits: { fileSize: maxBytes, files: spec.files.length, fields: 200 },
    // Report an oversized file ourselves (a thrown limit error would end the whole form as a 500).
    throwFileSizeLimit: false,
  };
  for await (const part of request.parts(options)) {
    const path = parseFieldName(part.fieldname);
    if (spec.key !== null) {
      if (path[0] !== spec.key) {
        if (part.type === 'file') await part.toBuffer().catch(() => undefined);
        continue;
      }
      path.shift();
    }
    const [field, index] = path;
    if (field === undefined || FORBIDDEN_KEYS.has(field)) {
      // A skipped file must still be read, or the form never ends.
      if (part.type === 'file') part.file.resume();
      continue;
    }
    if (part.type === 'file') {
      if (!spec.files.includes(field)) {
        part.file.resume();
        continue;
      }
      const data = await part.toBuffer();
      if (part.file.truncated) errors[field] = [`is too large (maximum is ${maxBytes} bytes)`];
      else files[field] = { data, filename: part.filename, mimetype: part.mimetype };
      continue;
    }
    const value = part.value as string;
    if (index !== undefined) {
      const array = unwrap(shape[field]);
      const element = array?.def.type === 'array' ? ((array as z.ZodArray).element as z.ZodType) : undefined;
      const list = Array.isArray(inner[field]) ? (inner[field] as unknown[]) : [];
      list.push(coerce(element, value));
      inner[field] = list;
    } else {
      inner[field] = coerce(shape[field], value);
    }
  }
  throwIfInvalid(errors);
  return { body: spec.key === null ? inner : { [spec.key]: inner }, files };
}
