import type { FieldErrors } from '@app/schemas';

/**
 * Takes the file fields (`logo`, `banner_image`) out of a payload, since the schemas describe the
 * JSON fields only. `errors` lists file fields that hold something other than a Blob.
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
    if (value instanceof Blob) files[field] = value;
    else if (value !== undefined && value !== null) errors[field] = ['must be a Blob or File'];
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
