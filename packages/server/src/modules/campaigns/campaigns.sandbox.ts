import type { TestHelperHandlers } from '../../http/route.js';
import { addFunding, forceCampaignStatus } from './campaigns.service.js';

/** Test-helper handlers of this module (decisions.md §4). */
export const campaignTestHelpers = {
  createFunding: ({ em, params, body }) => addFunding(em, params.organization_id, params.id, body.amount),
  setCampaignStatus: ({ em, config, params, body }) =>
    forceCampaignStatus(em, config, params.organization_id, params.id, body.status),
} satisfies Partial<TestHelperHandlers>;
