import * as z from 'zod';
import { component } from '../components.js';
import type { Described } from '../described.js';
import * as ex from '../examples.js';
import type { ResourceFieldDocs } from '../field-docs.js';
import { amountInput, briefInput, idOf, oneOf, text, timestamp, typeError } from '../primitives.js';
import { marketFields, pageFields, payloadFields, withBrief } from './organization-resource.js';
import { PlatformId } from './platform.js';

export const CampaignId = idOf('CampaignId', 'campaign');
export type CampaignId = z.infer<typeof CampaignId>;

export const CampaignStatus = component(oneOf(['draft', 'active', 'paused', 'finished']), {
  id: 'CampaignStatus',
  description: "A campaign's status",
  examples: ['draft'],
});
export type CampaignStatus = z.infer<typeof CampaignStatus>;

const amount = z.int().min(0);

export const CampaignSummary = z.object({
  id: CampaignId,
  name: z.string(),
  status: CampaignStatus,
  ...marketFields,
  content_type: z.string(),
  category: z.string(),
  platform_ids: z.array(PlatformId),
  platform_music_id: z.string().nullable(),
  cpm_amount: amount,
  min_payout_amount: amount,
  max_payout_amount: amount,
  base_reward_amount: amount,
  total_budget_amount: amount,
  used_amount: amount,
  unused_amount: amount,
  view_count: z.int().nonnegative(),
  submissions_count: z.int().nonnegative(),
  published_at: timestamp.nullable(),
  paused_at: timestamp.nullable(),
  ...pageFields,
});
export type CampaignSummary = Described<
  z.infer<typeof CampaignSummary>,
  ResourceFieldDocs['CampaignSummary']
>;
const { brief: _brief, ...campaignSummaryExample } = ex.campaign;
component(CampaignSummary, {
  id: 'CampaignSummary',
  description: 'A campaign as listed (without its brief).',
  examples: [campaignSummaryExample],
});

/** A campaign as shown: with `brief`, rendered and sanitized HTML. */
export const Campaign = withBrief(CampaignSummary);
export type Campaign = Described<z.infer<typeof Campaign>, ResourceFieldDocs['Campaign']>;
component(Campaign, {
  id: 'Campaign',
  description:
    'A campaign with its brief, rendered to sanitized HTML. Amounts are integers in the minor unit of its `currency` (cents for usd, yen for jpy).',
  examples: [ex.campaign],
});

/** Fields a published campaign no longer accepts on update (spec: "financial fields"). */
export const CAMPAIGN_FINANCIAL_FIELDS = [
  'currency',
  'cpm_amount',
  'min_payout_amount',
  'max_payout_amount',
  'base_reward_amount',
] as const;

/**
 * The cross-field payout rule: `min_payout_amount ≤ max_payout_amount` when a maximum is set
 * (`max_payout_amount > 0`). Returns the message for `min_payout_amount`, or null when it holds.
 * The server applies it again to the merged values of an update.
 */
export function payoutRangeError(min: number, max: number): string | null {
  return max > 0 && min > max ? 'must be less than or equal to max_payout_amount' : null;
}

const { name, website, currency, countries, purge_banner_image } = payloadFields;

const campaignFields = {
  name,
  website,
  content_type: text(50).optional(),
  category: text(50).optional(),
  currency,
  cpm_amount: amountInput.optional(),
  min_payout_amount: amountInput.optional(),
  max_payout_amount: amountInput.optional(),
  base_reward_amount: amountInput.optional(),
  // Duplicates are dropped, so a list holds at most the five platforms; the bound keeps a payload
  // of repeats small, as `countries`' does.
  platform_ids: z
    .array(PlatformId, { error: typeError('must be an array of platform identifiers') })
    .max(250, { error: 'has too many entries (maximum is 250)' })
    .transform((ids) => [...new Set(ids)])
    .optional(),
  platform_music_id: z.union([z.null(), text(200)]).optional(),
  countries,
  brief: briefInput.optional(),
};

// `| undefined` spelled out: under `exactOptionalPropertyTypes` an object's optional fields would not fit.
const withPayoutRule = <
  T extends z.ZodType<{ min_payout_amount?: number | undefined; max_payout_amount?: number | undefined }>,
>(
  schema: T,
) =>
  schema.superRefine(
    (v, ctx) => {
      if (typeof v.min_payout_amount !== 'number' || typeof v.max_payout_amount !== 'number') return;
      const message = payoutRangeError(v.min_payout_amount, v.max_payout_amount);
      if (message) ctx.addIssue({ code: 'custom', path: ['min_payout_amount'], message });
    },
    // Also when other fields are broken, so that every broken field is listed at once.
    {
      when: (payload) =>
        typeof payload.value === 'object' &&
        payload.value !== null &&
        !payload.issues.some(
          (i) => i.path?.[0] === 'min_payout_amount' || i.path?.[0] === 'max_payout_amount',
        ),
    },
  );

/** `campaign` payload of `POST …/campaigns.json`; omitted fields take the form defaults. */
export const CampaignCreate = withPayoutRule(z.object(campaignFields));
export type CampaignCreate = z.input<typeof CampaignCreate>;
component(CampaignCreate, {
  id: 'CampaignCreate',
  description: 'Fields of a new draft campaign (inside the `campaign` key).',
  examples: [{ name: 'Autumn reels', currency: 'eur', countries: ['DE'], cpm_amount: 250 }],
});

/** `campaign` payload of `PATCH …/campaigns/:id.json`. */
export const CampaignUpdate = withPayoutRule(z.object({ ...campaignFields, purge_banner_image }));
export type CampaignUpdate = z.input<typeof CampaignUpdate>;
component(CampaignUpdate, {
  id: 'CampaignUpdate',
  description: 'Fields to change on a campaign; financial fields are refused once it was published.',
  examples: [{ name: 'Autumn reels 2027' }],
});

/** What a create leaves out becomes (decisions.md §2); `currency` is the column's default, `usd`. */
export const CAMPAIGN_DEFAULTS = {
  name: 'Untitled campaign',
  content_type: 'video',
  category: 'general',
  cpm_amount: 0,
  min_payout_amount: 0,
  max_payout_amount: 0,
  base_reward_amount: 0,
  platform_ids: [],
  countries: ['US'],
  platform_music_id: null,
  brief: '## About the campaign\n\n## Content requirements\n\n## Payout\n',
} as const;
