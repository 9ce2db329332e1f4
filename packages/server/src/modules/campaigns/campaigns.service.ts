import {
  CAMPAIGN_DEFAULTS,
  CAMPAIGN_FINANCIAL_FIELDS,
  type CampaignStatus,
  type CampaignUpdate,
  type FieldErrors,
  type PlatformId,
  payoutRangeError,
} from '@app/schemas';
import { raw } from '@mikro-orm/core';
import type * as z from 'zod';
import type { Config } from '../../config.js';
import type { Em } from '../../db/database.js';
import { iso, isoOrNull } from '../../http/present.js';
import type { FieldMap } from '../common/assign.js';
import { organizationResource, presentPageFields } from '../organization-resources/organization-resource.js';
import { Campaign } from './campaign.entity.js';
import { Funding } from './funding.entity.js';

/*
 * Campaigns: their fields, what a draft starts as, the update rules of money (spec campaign rule
 * 3), and their transitions. The create, update, delete and transitions themselves are the shared
 * ones of a resource in an organization (organization-resources/organization-resource.ts).
 */

/** The parsed `campaign` payload (create fields, plus `purge_banner_image` on update). */
type CampaignInput = z.output<typeof CampaignUpdate>;

export function presentCampaignSummary(campaign: Campaign, baseUrl: string) {
  return {
    id: campaign.id,
    name: campaign.name,
    status: campaign.status,
    currency: campaign.currency,
    countries: campaign.countries,
    website: campaign.website ?? null,
    content_type: campaign.contentType,
    category: campaign.category,
    // Stored only from validated payloads.
    platform_ids: campaign.platformIds as PlatformId[],
    platform_music_id: campaign.platformMusicId ?? null,
    cpm_amount: campaign.cpmAmount,
    min_payout_amount: campaign.minPayoutAmount,
    max_payout_amount: campaign.maxPayoutAmount,
    base_reward_amount: campaign.baseRewardAmount,
    total_budget_amount: campaign.totalBudgetAmount,
    used_amount: campaign.usedAmount,
    unused_amount: campaign.totalBudgetAmount - campaign.usedAmount,
    view_count: campaign.viewCount,
    submissions_count: campaign.submissionsCount,
    published_at: isoOrNull(campaign.publishedAt),
    paused_at: isoOrNull(campaign.pausedAt),
    ...presentPageFields(campaign, baseUrl, 'campaigns'),
  };
}

/** Payload fields stored as they are (budget fields are read-only and not here). */
const CAMPAIGN_FIELDS: FieldMap<CampaignInput, Campaign> = {
  name: 'name',
  website: 'website',
  content_type: 'contentType',
  category: 'category',
  currency: 'currency',
  cpm_amount: 'cpmAmount',
  min_payout_amount: 'minPayoutAmount',
  max_payout_amount: 'maxPayoutAmount',
  base_reward_amount: 'baseRewardAmount',
  platform_ids: 'platformIds',
  platform_music_id: 'platformMusicId',
  countries: 'countries',
  brief: 'brief',
};

/**
 * After publication the financial fields are refused, each with its own error (spec campaign rule
 * 3); the payout rule is checked on the merged values. Run on the locked row, so that a concurrent
 * publish cannot slip between the check and the write.
 */
function checkCampaignUpdate(found: Campaign, input: CampaignInput, errors: FieldErrors): void {
  if (found.publishedAt) {
    for (const field of CAMPAIGN_FINANCIAL_FIELDS)
      if (input[field] !== undefined) errors[field] = ['cannot be changed after the campaign is published'];
  }
  // An amount refused above is not the new value: the range is not checked against it.
  if (errors.min_payout_amount || errors.max_payout_amount) return;
  const payout = payoutRangeError(
    input.min_payout_amount ?? found.minPayoutAmount,
    input.max_payout_amount ?? found.maxPayoutAmount,
  );
  if (payout) errors.min_payout_amount = [payout];
}

/**
 * Campaigns of an organization. A create starts a draft from the form defaults, budget totals at
 * 0, and `currency` left out takes the column's default; only a draft without fundings may be
 * deleted (spec rule 4). The transitions (decisions.md §2): `paused_at` tells when the current
 * pause began, set by pause and cleared by resume; publishing needs a budget and keeps a
 * `published_at` set earlier.
 */
export const campaigns = organizationResource({
  entity: Campaign,
  present: presentCampaignSummary,
  limit: 'campaignsPerOrganization',
  fields: CAMPAIGN_FIELDS,
  draft: (input) => ({
    brief: input?.brief ?? CAMPAIGN_DEFAULTS.brief,
    row: {
      name: CAMPAIGN_DEFAULTS.name,
      contentType: CAMPAIGN_DEFAULTS.content_type,
      category: CAMPAIGN_DEFAULTS.category,
      cpmAmount: CAMPAIGN_DEFAULTS.cpm_amount,
      minPayoutAmount: CAMPAIGN_DEFAULTS.min_payout_amount,
      maxPayoutAmount: CAMPAIGN_DEFAULTS.max_payout_amount,
      baseRewardAmount: CAMPAIGN_DEFAULTS.base_reward_amount,
      platformIds: [...CAMPAIGN_DEFAULTS.platform_ids],
      platformMusicId: CAMPAIGN_DEFAULTS.platform_music_id,
      countries: [...CAMPAIGN_DEFAULTS.countries],
      website: null,
    },
  }),
  checkUpdate: checkCampaignUpdate,
  lifecycle: 'status',
  dependents: { entity: Funding, parent: 'campaign', message: 'Cannot delete a campaign that has fundings' },
  transitions: {
    publish: {
      from: 'draft',
      to: 'active',
      set: (now) => ({ publishedAt: raw('coalesce(published_at, ?)', [now]) }),
      // A draft that cannot be published for want of money: the error is on the budget field.
      requires: {
        where: { totalBudgetAmount: { $gt: 0 } },
        errors: { total_budget_amount: ['must be greater than 0 to publish'] },
      },
    },
    pause: { from: 'active', to: 'paused', set: (now) => ({ pausedAt: now }) },
    resume: { from: 'paused', to: 'active', set: () => ({ pausedAt: null }) },
  },
});

/** Test helper: a funding; the budget is incremented in the database, exact under concurrency. */
export async function addFunding(em: Em, organizationId: string, id: string, amount: number) {
  const funding = await campaigns.addDependent(
    em,
    organizationId,
    id,
    { totalBudgetAmount: raw('total_budget_amount + ?', [amount]) },
    (tem) => tem.create(Funding, { campaign: id, amount }),
  );
  return { id: funding.id, amount: funding.amount, created_at: iso(funding.createdAt) };
}

/**
 * Test helper: forces a status. `published_at` is set when first active; `paused_at` is set
 * when it becomes paused and cleared otherwise, as the transitions do.
 */
export const forceCampaignStatus = (
  em: Em,
  config: Config,
  organizationId: string,
  id: string,
  status: CampaignStatus,
) =>
  campaigns.force(em, config, organizationId, id, (found) => {
    if (status === 'active') found.publishedAt ??= new Date();
    if (status !== 'paused') found.pausedAt = null;
    else if (found.status !== 'paused') found.pausedAt = new Date();
    found.status = status;
  });
