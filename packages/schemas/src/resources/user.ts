import * as z from 'zod';
import type { Described } from '../described.js';
import type { ResourceFieldDocs } from '../field-docs.js';
import { idOf } from '../primitives.js';

export const UserId = idOf('UserId', 'user');
export type UserId = z.infer<typeof UserId>;

/** A user as embedded in a membership and returned by the test helpers. */
export const User = z.object({
  id: UserId,
  name: z.string(),
  email: z.email(),
});
export type User = Described<z.infer<typeof User>, ResourceFieldDocs['User']>;
