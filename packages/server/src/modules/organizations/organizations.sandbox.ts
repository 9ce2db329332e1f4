import type { TestHelperHandlers } from '../../http/route.js';
import { setSubscription } from './organizations.service.js';

/** Test-helper handlers of this module (decisions.md §4). */
export const organizationTestHelpers = {
  setSubscription: ({ em, params, body }) => setSubscription(em, params.organization_id, body.active),
} satisfies Partial<TestHelperHandlers>;
