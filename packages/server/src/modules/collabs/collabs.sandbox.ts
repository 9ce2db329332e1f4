import type { TestHelperHandlers } from '../../http/route.js';
import { addSubmission, forceCollabState } from './collabs.service.js';

/** Test-helper handlers of this module (decisions.md §4). */
export const collabTestHelpers = {
  createSubmission: ({ em, params }) => addSubmission(em, params.organization_id, params.id),
  setCollabState: ({ em, config, params, body }) =>
    forceCollabState(em, config, params.organization_id, params.id, body.state),
} satisfies Partial<TestHelperHandlers>;
