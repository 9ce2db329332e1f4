import type { TestHelperHandlers } from '../../http/route.js';
import { addMember, createJoinRequest } from './members.service.js';

/** Test-helper handlers of this module (decisions.md §4). */
export const memberTestHelpers = {
  addMember: ({ em, params, body }) => addMember(em, params.organization_id, body.user_id, body.role),
  createJoinRequest: ({ em, params, body }) => createJoinRequest(em, params.organization_id, body.user_id),
} satisfies Partial<TestHelperHandlers>;
