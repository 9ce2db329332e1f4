import type { FieldErrors } from '@app/schemas';

/**
 * What a file field takes: a `Blob` or `File`, or the file's bytes (a Node `Buffer` is a
 * `Uint8Array`). Bytes are sent as a file without a type of its own (`application/octet-stream`,
 * named `blob`), as a `Blob` without one is: the server tells the image's type by its content.
 */
export type FileValue = Blob | Uint8Array | ArrayBuffer;

const ACCEPTED = 'must be a Blob, File, Uint8Array or ArrayBuffer';

/** A file field's value as a Blob, or why it cannot be one. */
function fileOf(value: unknown): Blob | string {
  if (value instanceof Blob) return value;
  // Copied now: a caller who reuses the buffer after the call does not change what is sent.
  if (value instanceof Uint8Array) return new Blob([value.slice()]);
  if (value instanceof ArrayBuffer) return new Blob([value.slice(0)]);
  if (typeof value === 'string')
    return `${ACCEPTED}, not a string: a path is not read (in Node, pass \`await openAsBlob(path)\` from node:fs)`;
  if (isStream(value))
    return `${ACCEPTED}, not a stream: pass \`await new Response(stream).blob()\`, or in Node \`new Blob([await buffer(stream)])\` (node:stream/consumers)`;
  return ACCEPTED;
}

/** A web `ReadableStream`, a Node stream, or any async iterable. */
function isStream(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return (
    (typeof ReadableStream !== 'undefined' && value instanceof ReadableStream) ||
    Symbol.asyncIterator in value ||
    typeof Reflect.get(value, 'pipe') === 'function'
  );
}

/**
 * Takes the file fields (`logo`, `banner_image`) out of a payload, since the schemas describe the
 * JSON fields only; bytes become a Blob. `errors` lists file fields that hold anything else.
 */
export function splitFiles(
  body: unknown,
  fileFields: readonly string[],
): { fields: unknown; files: Record<string, Blob>; errors: FieldErrors } {
  const files: Record<string, Blob> = {};
  const errors: FieldErrors = {};
  if (typeof body !== 'object' || body === null || fileFields.length === 0)
    return { fields: body, files, errors };
  const fields: Record<string, unknown> = { ...body };
  for (const field of fileFields) {
    const value = fields[field];
    delete fields[field];
    if (value === undefined || value === null) continue;
    const file = fileOf(value);
    if (typeof file === 'string') errors[field] = [file];
    else files[field] = file;
  }
  return { fields, files, errors };
}

/**
 * A multipart form with Rails-style field names, as the server expects:
 * `organization[name]`, `organization[logo]`, `collab[countries][]`; booleans and numbers as their
 * decimal text, `null` as an empty value, `[]` as one empty `name[]`. Without a wrapper key the names are the bare fields.
 */
export function toFormData(key: string | null, body: Readonly<Record<string, unknown>>): FormData {
  const form = new FormData();
  for (const [field, value] of Object.entries(body))
    append(form, key === null ? field : `${key}[${field}]`, value);
  return form;
}

function append(form: FormData, name: string, value: unknown): void {
  if (value === undefined) return;
  if (value instanceof Blob) form.append(name, value, value instanceof File ? value.name : 'blob');
  else if (value === null) form.append(name, '');
  // An empty list is one empty `name[]`: the server reads it as `[]` (sending nothing would leave
  // the stored list as it was).
  else if (Array.isArray(value)) {
    if (value.length === 0) form.append(`${name}[]`, '');
    for (const item of value) append(form, `${name}[]`, item);
  } else if (typeof value === 'object')
    for (const [k, v] of Object.entries(value)) append(form, `${name}[${k}]`, v);
  else form.append(name, String(value));
}
