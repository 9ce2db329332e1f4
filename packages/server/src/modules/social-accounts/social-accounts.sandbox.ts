import type { TestHelperHandlers } from '../../http/route.js';
import { presentSocialAccount, syncSocialAccount } from './social-accounts.service.js';

/** Test-helper handlers of this module (decisions.md §4). */
export const socialAccountTestHelpers = {
  syncSocialAccount: async ({ em, params, body, config }) =>
    presentSocialAccount(config.baseUrl, await syncSocialAccount(em, params.id, body)),
} satisfies Partial<TestHelperHandlers>;
