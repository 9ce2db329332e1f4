import type { FieldErrors } from '@app/schemas';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type * as z from 'zod';
import type { Config } from '../config.js';
import { badRequest, HttpError } from '../http/errors.js';
import { IMAGE_TYPE_MESSAGE, sniffImage, type UploadedFile } from '../modules/uploads/uploads.js';

/** Where a request that came as a multipart form is marked, on the routes that take no files. */
const kForm = Symbol('multipart form');

/**
 * Registers the routes `register` adds in a context of their own that reads multipart forms:
 * `@fastify/multipart`, with the file size limit enforced while a form is read (the form's own caps
 * and its reading into the payload are below). Its hooks (an `onRequest` that adds a `close`
 * listener and an `onResponse` that cleans saved files, both async, on every request) then run for
 * these routes only, not for every show and page.
 */
export async function withMultipart(
  app: FastifyInstance,
  config: Config,
  register: (forms: FastifyInstance) => void,
): Promise<void> {
  await app.register(async (forms) => {
    await forms.register(multipart, { limits: { fileSize: config.maxUploadBytes } });
    register(forms);
  });
}

/**
 * Registers the routes `register` adds in a context of their own where a multipart form is
 * marked and left unread, as `@fastify/multipart`'s parser does (its `isMultipart()`): a route that
 * takes a body refuses it (`isMultipartForm`), one that takes none ignores it.
 */
export async function withoutMultipart(
  app: FastifyInstance,
  register: (plain: FastifyInstance) => void,
): Promise<void> {
  await app.register(async (plain) => {
    plain.decorateRequest(kForm, false);
    plain.addContentTypeParser('multipart/form-data', (request, _payload, done) => {
      (request as FastifyRequest & { [kForm]: boolean })[kForm] = true;
      done(null, undefined);
    });
    register(plain);
  });
}

/** Whether the request came as a multipart form, on a route registered by {@link withoutMultipart}. */
export const isMultipartForm = (request: FastifyRequest): boolean =>
  (request as FastifyRequest & { [kForm]?: boolean })[kForm] === true;

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

/** Whether `null` is a value of the field (`platform_music_id`, `website`). */
function acceptsNull(schema: z.ZodType | undefined): boolean {
  return schema?.safeParse(null).success === true;
}

function shapeOf(schema: z.ZodType | undefined): Record<string, z.ZodType> {
  const s = unwrap(schema);
  return s && s.def.type === 'object' ? (s as z.ZodObject).shape : {};
}

/**
 * Caps of a multipart form, so that a form costs no more memory than a JSON body: the text
 * fields together at most {@link FORM_FIELDS_MAX_BYTES} (the JSON body limit), each at most
 * {@link FORM_FIELD_MAX_BYTES} (a 20 000-character brief in four-byte characters fits), at most
 * {@link FORM_FIELDS_MAX} of them (a list of every country fits), and the endpoint's files at
 * `maxBytes` each. Past a cap: `413 {"error": ...}`, and nothing is stored.
 */
export const FORM_FIELD_MAX_BYTES = 96 * 1024;
export const FORM_FIELDS_MAX = 300;
export const FORM_FIELDS_MAX_BYTES = 1024 * 1024;

/** The largest multipart form an endpoint with `files` file fields reads, its boundaries included. */
export const formMaxBytes = (files: number, maxBytes: number) =>
  FORM_FIELDS_MAX_BYTES + files * maxBytes + 64 * 1024;

const tooLarge = (what: string) => new HttpError(413, { error: `The form is too large: ${what}` });

/**
 * `preValidation` hook body for endpoints that take files: turns a Rails-style multipart form
 * into the same object a JSON request would carry, and keeps the files aside (they are checked
 * and stored by the resource's service). Files over `maxBytes` and text in a file field are
 * returned as `errors` (a `422` on their field, with the payload's own errors); a form over the
 * caps above is a `413`; a form that cannot be parsed is a `400`.
 */
export async function readMultipartForm(
  request: FastifyRequest,
  spec: { key: string | null; schema: z.ZodType; files: readonly string[] },
  maxBytes: number,
): Promise<{ body: Record<string, unknown>; files: Record<string, UploadedFile>; errors: FieldErrors }> {
  // A form announced larger than any acceptable one is refused before it is read.
  const announced = Number(request.headers['content-length'] ?? 0);
  if (announced > formMaxBytes(spec.files.length, maxBytes))
    throw tooLarge(`at most ${FORM_FIELDS_MAX_BYTES + spec.files.length * maxBytes} bytes`);
  try {
    return await readParts(request, spec, maxBytes);
  } catch (error) {
    if (error instanceof HttpError) throw error;
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 413) throw tooLarge((error as Error).message);
    // Busboy's own errors (no boundary, no closing boundary, a broken part) and the plugin's
    // 4xx errors (a part declared as JSON that is not) are the client's: a 400.
    throw badRequest(`The multipart form is malformed: ${(error as Error).message}`);
  }
}

async function readParts(
  request: FastifyRequest,
  spec: { key: string | null; schema: z.ZodType; files: readonly string[] },
  maxBytes: number,
): Promise<{ body: Record<string, unknown>; files: Record<string, UploadedFile>; errors: FieldErrors }> {
  const shape = shapeOf(spec.schema);
  const inner: Record<string, unknown> = {};
  const files: Record<string, UploadedFile> = {};
  const errors: FieldErrors = {};
  const options = {
    limits: {
      fileSize: maxBytes,
      files: spec.files.length,
      fields: FORM_FIELDS_MAX,
      fieldSize: FORM_FIELD_MAX_BYTES,
      parts: FORM_FIELDS_MAX + spec.files.length,
    },
    // Report an oversized file ourselves (a thrown limit error would end the whole form as a 500).
    throwFileSizeLimit: false,
  };
  let fieldBytes = 0;
  // A form none of whose fields is under the wrapper key is the JSON body `{}`, not `{key: {}}`.
  let wrapped = false;
  for await (const part of request.parts(options)) {
    if (part.type === 'field') {
      if (part.valueTruncated) throw tooLarge(`a field is over ${FORM_FIELD_MAX_BYTES} bytes`);
      const bytes = typeof part.value === 'string' ? Buffer.byteLength(part.value) : 0;
      request.holdBodyBytes(bytes);
      fieldBytes += bytes;
      if (fieldBytes > FORM_FIELDS_MAX_BYTES)
        throw tooLarge(`the fields are over ${FORM_FIELDS_MAX_BYTES} bytes together`);
    }
    const path = parseFieldName(part.fieldname);
    if (spec.key !== null) {
      if (path[0] !== spec.key) {
        // Unknown parts are dropped: a file is read to nowhere, not buffered.
        if (part.type === 'file') part.file.resume();
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
    wrapped = true;
    if (part.type === 'file') {
      if (!spec.files.includes(field)) {
        part.file.resume();
        // A file where the payload takes text is refused, as text where it takes a file is; a
        // file under a name the payload does not have is dropped, as any unknown field is.
        if (Object.hasOwn(shape, field)) errors[field] = ['must be text (a multipart field), not a file'];
        continue;
      }
      // Read here rather than with `toBuffer()`: every chunk is counted against the budget of
      // bodies in memory as it comes (a `503` past it), and given back when the request ends.
      const chunks: Buffer[] = [];
      for await (const chunk of part.file as AsyncIterable<Buffer>) {
        request.holdBodyBytes(chunk.length);
        chunks.push(chunk);
      }
      const data = Buffer.concat(chunks);
      if (part.file.truncated) errors[field] = [`is too large (maximum is ${maxBytes} bytes)`];
      else files[field] = { data, filename: part.filename, mimetype: part.mimetype };
      continue;
    }
    const value = part.value as string;
    if (spec.files.includes(field)) {
      errors[field] = ['must be a file (a multipart file part)'];
      continue;
    }
    if (index !== undefined) {
      const array = unwrap(shape[field]);
      const element = array?.def.type === 'array' ? ((array as z.ZodArray).element as z.ZodType) : undefined;
      const list = Array.isArray(inner[field]) ? (inner[field] as unknown[]) : [];
      // An empty `name[]` says the list exists (Rails' hidden-field convention): alone, it is `[]`.
      if (value !== '') list.push(coerce(element, value));
      inner[field] = list;
    } else {
      // A form cannot carry `null`: an empty value is `null` where the field takes it.
      inner[field] = value === '' && acceptsNull(shape[field]) ? null : coerce(shape[field], value);
    }
  }
  return { body: spec.key === null || !wrapped ? inner : { [spec.key]: inner }, files, errors };
}

/**
 * The file fields of a multipart request that are refused whatever the other fields hold: those
 * refused while reading it, and files that are not images. Listed beside the payload's own
 * errors when validation fails, so that every broken field is named at once.
 */
export function fileFieldErrors(request: FastifyRequest): FieldErrors {
  const errors: FieldErrors = { ...request.uploadErrors };
  for (const [field, file] of Object.entries(request.uploads ?? {}))
    if (file && !sniffImage(file.data)) errors[field] ??= [IMAGE_TYPE_MESSAGE];
  return errors;
}
