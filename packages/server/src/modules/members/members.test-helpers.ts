import type { TestHelperHandlers } from '../../http/routes.js';
import { notImplemented } from '../../http/routes.js';

/** Test-helper handlers of this module (decisions.md §4). */
export const memberTestHelpers = {
  addMember: notImplemented,
  createJoinRequest: notImplemented,
} satisfies Partial<TestHelperHandlers>;
