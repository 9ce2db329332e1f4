import type { Em } from '../../db/database.js';
import { Campaign } from './campaign.entity.js';

/** Whether an organization still has any campaign (it blocks the organization's deletion). */
export async function organizationHasCampaigns(em: Em, organizationId: string): Promise<boolean> {
  return (await em.count(Campaign, { organization: organizationId })) > 0;
}
