import type { BodySpec } from '@app/schemas';
import * as z from 'zod';
import { wrapperMessage } from './errors.js';

const wrapperError = (issue: { input?: unknown }) => wrapperMessage(issue.input);

/** The request-body schema: the payload inside its wrapper key (decisions.md: "is missing"). */
export function bodySchemaOf(spec: BodySpec): z.ZodType {
  // Bare fields (no wrapper key): no body is `{}`, so its fields are named ("can't be blank").
  if (spec.key === null) return z.preprocess((value) => value ?? {}, spec.schema);
  const inner = spec.required ? spec.schema : spec.schema.optional();
  const wrapper = z.object({ [spec.key]: inner }, { error: wrapperError });
  // A POST without a body reaches validation as null: "no body" like an absent one.
  return spec.required ? wrapper : wrapper.nullish();
}
