import * as z from 'zod';
import { component } from './components.js';

/** `WWW-Authenticate` header of every 401. */
export const WWW_AUTHENTICATE = 'Token realm="Application"';
/** `text/plain` body of every 401. */
export const UNAUTHORIZED_TEXT = 'HTTP Token: Access denied.';
export const NOT_FOUND_MESSAGE = 'Not found';
export const FORBIDDEN_MESSAGE = 'You are not allowed to perform this action';
export const SERVICE_UNAVAILABLE_MESSAGE = 'Service temporarily unavailable';
export const NOT_ACCEPTABLE_TEXT =
  'This endpoint answers JSON only: add the .json suffix to the path or send "Accept: application/json".';

/** `403`, most `404`, `400`, `408`, `409`, `413`, `415` and `503` bodies. */
export const ErrorBody = z.object({ error: z.string() });
export type ErrorBody = z.infer<typeof ErrorBody>;
component(ErrorBody, {
  // Not `Error`: a generated client declares each component as a type or class of its name,
  // and one named `Error` shadows the global Error in its module (issue #29).
  id: 'ErrorBody',
  description: 'Error body of 400, 403, 404, 408, 409, 413, 415 and 503.',
  examples: [{ error: 'Not found' }],
});

/** `422` body: every broken field with all of its messages. */
export const ValidationErrorBody = z.object({
  errors: z.record(z.string(), z.array(z.string())),
});
export type ValidationErrorBody = z.infer<typeof ValidationErrorBody>;
component(ValidationErrorBody, {
  id: 'ValidationErrors',
  description: 'Error body of 422: every broken field with all of its messages (`base` for the object).',
  examples: [{ errors: { name: ["can't be blank"], website: ['is invalid'] } }],
});
export type FieldErrors = ValidationErrorBody['errors'];

/** What {@link toFieldErrors} needs of an issue (zod's issues have it). */
export interface IssueLike {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * Turns validation issues into the `errors` map: each field is the first path segment, `base`
 * for the object itself. With `under` (the wrapper key the payload sat in), that key is dropped,
 * and an issue on the wrapper itself is reported under the wrapper's name.
 */
export function toFieldErrors(issues: readonly IssueLike[], under?: string): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const path = issue.path.map(String);
    const wrapped = under !== undefined && path[0] === under;
    if (wrapped) path.shift();
    const field = path[0] ?? (wrapped ? (under as string) : 'base');
    const list = errors[field] ?? [];
    if (!list.includes(issue.message)) list.push(issue.message);
    errors[field] = list;
  }
  return errors;
}
