import type { TestHelperHandlers } from '../../http/route.js';
import { createUserWithToken } from './users.service.js';

/** Test-helper handlers of this module (decisions.md §4). */
export const userTestHelpers = {
  createUser: ({ em, body }) => createUserWithToken(em, body.user, body.access_token),
} satisfies Partial<TestHelperHandlers>;
