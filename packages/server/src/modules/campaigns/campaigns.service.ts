import {
  CAMPAIGN_DEFAULTS,
  CAMPAIGN_FINANCIAL_FIELDS,
  type CampaignCreate,
  type CampaignStatus,
  type CampaignUpdate,
  type FieldErrors,
  type PlatformId,
  payoutRangeError,
} from '@app/schemas';
import { raw } from '@mikro-orm/core';
import type { z } from 'zod';
import type { Config } from '../../config.js';
import type { Em } from '../../db/database.js';
import { forbidden, notFound, throwIfInvalid, unprocessable } from '../../http/errors.js';
import { iso, isoOrNull, resourceUrl } from '../../http/present.js';
import { briefHtmlOf, renderBrief } from '../briefs/brief.js';
import { assignDefined, type FieldMap } from '../common/assign.js';
import { findInOrganization, organizationReads } from '../common/find.js';
import { flushWithinLimit } from '../common/limits.js';
import { checkImage, createWithAttachment, updateWithAttachment } from '../uploads/attachment.js';
import { type UploadedFiles, type UploadStore, uploadUrl } from '../uploads/uploads.js';
import { Campaign } from './campaign.entity.js';
import { Funding } from './funding.entity.js';

type CreateInput = z.output<typeof CampaignCreate>;
type UpdateInput = z.output<typeof CampaignUpdate>;

/** Whether an organization still has any campaign (it blocks the organization's deletion). */
export async function organizationHasCampaigns(em: Em, organizationId: string): Promise<boolean> {
  return (await em.count(Campaign, { organization: organizationId })) > 0;
}

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
    created_at: iso(campaign.createdAt),
    updated_at: iso(campaign.updatedAt),
    url: resourceUrl(baseUrl, `/organizations/${campaign.organization.id}/campaigns/${campaign.id}`),
    banner_image_url: campaign.bannerImage ? uploadUrl(baseUrl, campaign.bannerImage) : null,
  };
}

/** The show shape: with the brief rendered to sanitized HTML. */
export const presentCampaign = (campaign: Campaign, baseUrl: string) => ({
  ...presentCampaignSummary(campaign, baseUrl),
  brief: briefHtmlOf(campaign),
});

/**
 * The list (members and admins see all, newest first) and the show, each read with the caller.
 */
export const campaignReads = organizationReads(Campaign, {
  summary: presentCampaignSummary,
  show: presentCampaign,
});

/** Payload fields stored as they are (budget fields are read-only and not here). */
const CAMPAIGN_FIELDS: FieldMap<UpdateInput, Campaign> = {
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
 * Creates a draft from the form defaults and the payload; budget totals start at 0, and
 * `currency` left out takes the column's default.
 */
export async function createCampaign(
  em: Em,
  config: Config,
  store: UploadStore,
  organizationId: string,
  input: CreateInput,
  files: UploadedFiles,
) {
  const errors: FieldErrors = {};
  checkImage('banner_image', files.banner_image, errors);
  throwIfInvalid(errors);

  const briefHtml = await renderBrief(input.brief ?? CAMPAIGN_DEFAULTS.brief, config.briefRenderBudgetMs);
  return createWithAttachment(store, files.banner_image, async (bannerImage) => {
    const campaign = em.create(Campaign, {
      organization: organizationId,
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
      brief: CAMPAIGN_DEFAULTS.brief,
      briefHtml,
      bannerImage,
    });
    assignDefined(em, campaign, input, CAMPAIGN_FIELDS);
    await flushWithinLimit(em, 'campaignsPerOrganization', organizationId, config.limits);
    return presentCampaign(campaign, config.baseUrl);
  });
}

/**
 * Updates the given fields. After publication the financial fields are refused, each with its
 * own error (spec campaign rule 3); the payout rule is checked on the merged values. The row is
 * locked so that a concurrent publish cannot slip between the check and the write.
 */
export async function updateCampaign(
  em: Em,
  config: Config,
  store: UploadStore,
  organizationId: string,
  id: string,
  input: UpdateInput,
  files: UploadedFiles,
) {
  // Rendered before the row is locked: rendering may take up to its budget.
  const briefHtml =
    input.brief !== undefined ? await renderBrief(input.brief, config.briefRenderBudgetMs) : undefined;
  const change = { file: files.banner_image, purge: input.purge_banner_image };
  const campaign = await updateWithAttachment(em, store, 'bannerImage', change, async (tem) => {
    const found = await findInOrganization(tem, Campaign, organizationId, id, { lock: true });
    const errors: FieldErrors = {};
    checkImage('banner_image', files.banner_image, errors);
    if (found.publishedAt) {
      for (const field of CAMPAIGN_FINANCIAL_FIELDS)
        if (input[field] !== undefined) errors[field] = ['cannot be changed after the campaign is published'];
    }
    const payout = payoutRangeError(
      input.min_payout_amount ?? found.minPayoutAmount,
      input.max_payout_amount ?? found.maxPayoutAmount,
    );
    if (payout && !errors.min_payout_amount) errors.min_payout_amount = [payout];
    throwIfInvalid(errors);

    assignDefined(tem, found, input, CAMPAIGN_FIELDS);
    if (briefHtml !== undefined) found.briefHtml = briefHtml;
    return found;
  });
  return presentCampaign(campaign, config.baseUrl);
}

/** Deletes a draft without fundings (spec rule 4); the row is locked against a new funding. */
export async function deleteCampaign(em: Em, store: UploadStore, organizationId: string, id: string) {
  const banner = await em.transactional(async (tem) => {
    const campaign = await findInOrganization(tem, Campaign, organizationId, id, { lock: true });
    if (campaign.status !== 'draft') throw forbidden();
    if ((await tem.count(Funding, { campaign: id })) > 0)
      throw unprocessable({ base: ['Cannot delete a campaign that has fundings'] });
    tem.remove(campaign);
    return campaign.bannerImage;
  });
  await store.remove(banner);
}

/**
 * The campaign transitions of the API (decisions.md §2). Each is one conditional UPDATE, so two
 * concurrent calls cannot both succeed. `paused_at` tells when the current pause began: set by
 * pause, cleared by resume. Publishing keeps a `published_at` set earlier.
 */
export async function transitionCampaign(
  em: Em,
  organizationId: string,
  id: string,
  action: 'publish' | 'pause' | 'resume',
): Promise<void> {
  const now = new Date();
  const where = { id, organization: organizationId };
  let changed: number;
  if (action === 'publish') {
    changed = await em.nativeUpdate(
      Campaign,
      { ...where, status: 'draft', totalBudgetAmount: { $gt: 0 } },
      { status: 'active', publishedAt: raw('coalesce(published_at, ?)', [now]), updatedAt: now },
    );
  } else if (action === 'pause') {
    changed = await em.nativeUpdate(
      Campaign,
      { ...where, status: 'active' },
      { status: 'paused', pausedAt: now, updatedAt: now },
    );
  } else {
    changed = await em.nativeUpdate(
      Campaign,
      { ...where, status: 'paused' },
      { status: 'active', pausedAt: null, updatedAt: now },
    );
  }
  if (changed > 0) return;

  const campaign = await findInOrganization(em, Campaign, organizationId, id);
  const from = { publish: 'draft', pause: 'active', resume: 'paused' }[action];
  if (campaign.status !== from) throw unprocessable({ status: [`must be ${from} to ${action}`] });
  // A draft that cannot be published for want of money: the error is on the budget field.
  throw unprocessable({ total_budget_amount: ['must be greater than 0 to publish'] });
}

/** Test helper: a funding; the budget is incremented in the database, exact under concurrency. */
export async function addFunding(em: Em, organizationId: string, id: string, amount: number) {
  return em.transactional(async (tem) => {
    const changed = await tem.nativeUpdate(
      Campaign,
      { id, organization: organizationId },
      { totalBudgetAmount: raw('total_budget_amount + ?', [amount]) },
    );
    if (changed === 0) throw notFound();
    const funding = tem.create(Funding, { campaign: id, amount });
    await tem.flush();
    return { id: funding.id, amount: funding.amount, created_at: iso(funding.createdAt) };
  });
}

/**
 * Test helper: forces a status. `published_at` is set when first active; `paused_at` is set
 * when it becomes paused and cleared otherwise, as the transitions do.
 */
export async function forceCampaignStatus(
  em: Em,
  config: Config,
  organizationId: string,
  id: string,
  status: CampaignStatus,
) {
  const campaign = await em.transactional(async (tem) => {
    const found = await findInOrganization(tem, Campaign, organizationId, id, { lock: true });
    if (status === 'active') found.publishedAt ??= new Date();
    if (status !== 'paused') found.pausedAt = null;
    else if (found.status !== 'paused') found.pausedAt = new Date();
    found.status = status;
    return found;
  });
  return presentCampaign(campaign, config.baseUrl);
}
