import { COLLAB_DEFAULTS, type CollabState, type CollabUpdate, type FieldErrors } from '@app/schemas';
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
import { Collab } from './collab.entity.js';
import { Submission } from './submission.entity.js';
import { prefillFromWebsite } from './website-prefill.js';

/** The parsed `collab` payload (create fields, plus `purge_banner_image` on update). */
type CollabInput = z.output<typeof CollabUpdate>;

/** Payload fields an update stores as they are: payload name → entity property. */
const COLLAB_FIELDS: FieldMap<CollabInput, Collab> = {
  name: 'name',
  website: 'website',
  currency: 'currency',
  countries: 'countries',
  require_boosted_ads: 'requireBoostedAds',
  requires_product_shipment: 'requiresProductShipment',
  brief: 'brief',
};

/** Whether an organization still has any collab (it blocks the organization's deletion). */
export async function organizationHasCollabs(em: Em, organizationId: string): Promise<boolean> {
  return (await em.count(Collab, { organization: organizationId })) > 0;
}

export function presentCollabSummary(collab: Collab, baseUrl: string) {
  return {
    id: collab.id,
    name: collab.name,
    state: collab.state,
    currency: collab.currency,
    countries: collab.countries,
    website: collab.website ?? null,
    require_boosted_ads: collab.requireBoostedAds,
    requires_product_shipment: collab.requiresProductShipment,
    submissions_count: collab.submissionsCount,
    completed_count: collab.completedCount,
    published_at: isoOrNull(collab.publishedAt),
    created_at: iso(collab.createdAt),
    updated_at: iso(collab.updatedAt),
    url: resourceUrl(baseUrl, `/organizations/${collab.organization.id}/collabs/${collab.id}`),
    banner_image_url: collab.bannerImage ? uploadUrl(baseUrl, collab.bannerImage) : null,
  };
}

/** The show shape: with the brief rendered to sanitized HTML. */
export const presentCollab = (collab: Collab, baseUrl: string) => ({
  ...presentCollabSummary(collab, baseUrl),
  brief: briefHtmlOf(collab),
});

/**
 * The list (members and admins see all, newest first) and the show, each read with the caller.
 */
export const collabReads = organizationReads(Collab, { summary: presentCollabSummary, show: presentCollab }, [
  'brief',
  'briefHtml',
]);

/**
 * Creates a draft. Each field comes from the payload, else from the `website` page (prefill),
 * else from the defaults; `currency` left out takes the column's default (spec).
 */
export async function createCollab(
  em: Em,
  config: Config,
  store: UploadStore,
  organizationId: string,
  input: CollabInput | undefined,
  files: UploadedFiles,
  website: string | undefined,
) {
  const errors: FieldErrors = {};
  checkImage('banner_image', files.banner_image, errors);
  throwIfInvalid(errors);

  const prefill = website
    ? await prefillFromWebsite(website, {
        allowPrivate: config.prefillAllowPrivate,
        maxImageBytes: config.maxUploadBytes,
      })
    : null;
  const brief = input?.brief ?? prefill?.brief ?? COLLAB_DEFAULTS.brief;
  const briefHtml = await renderBrief(brief, config.briefRenderBudgetMs);
  return createWithAttachment(store, files.banner_image ?? prefill?.banner, async (bannerImage) => {
    const collab = em.create(Collab, {
      organization: organizationId,
      name: input?.name ?? prefill?.name ?? COLLAB_DEFAULTS.name,
      countries: input?.countries ?? prefill?.countries ?? [...COLLAB_DEFAULTS.countries],
      website: input?.website !== undefined ? input.website : (prefill?.website ?? null),
      requireBoostedAds: input?.require_boosted_ads ?? COLLAB_DEFAULTS.require_boosted_ads,
      requiresProductShipment: input?.requires_product_shipment ?? COLLAB_DEFAULTS.requires_product_shipment,
      brief,
      briefHtml,
      bannerImage,
      ...(input?.currency !== undefined && { currency: input.currency }),
    });
    await flushWithinLimit(em, 'collabsPerOrganization', organizationId, config.limits);
    return presentCollab(collab, config.baseUrl);
  });
}

/** Updates the given fields; the row is locked so that banner replacements do not interleave. */
export async function updateCollab(
  em: Em,
  config: Config,
  store: UploadStore,
  organizationId: string,
  id: string,
  input: CollabInput,
  files: UploadedFiles,
) {
  // Rendered before the row is locked: rendering may take up to its budget.
  const briefHtml =
    input.brief !== undefined ? await renderBrief(input.brief, config.briefRenderBudgetMs) : undefined;
  const change = { file: files.banner_image, purge: input.purge_banner_image };
  const collab = await updateWithAttachment(em, store, 'bannerImage', change, async (tem) => {
    const found = await findInOrganization(tem, Collab, organizationId, id, { lock: true });
    const errors: FieldErrors = {};
    checkImage('banner_image', files.banner_image, errors);
    throwIfInvalid(errors);

    assignDefined(tem, found, input, COLLAB_FIELDS);
    if (briefHtml !== undefined) found.briefHtml = briefHtml;
    return found;
  });
  return presentCollab(collab, config.baseUrl);
}

/** Deletes a draft without submissions (spec rule 4); the row is locked against a new submission. */
export async function deleteCollab(em: Em, store: UploadStore, organizationId: string, id: string) {
  const banner = await em.transactional(async (tem) => {
    const collab = await findInOrganization(tem, Collab, organizationId, id, { lock: true });
    if (collab.state !== 'draft') throw forbidden();
    if ((await tem.count(Submission, { collab: id })) > 0)
      throw unprocessable({ base: ['Cannot delete a collab that has submissions'] });
    tem.remove(collab);
    return collab.bannerImage;
  });
  await store.remove(banner);
}

/** The collab transitions of the API: action → [from, to] (decisions.md §2). */
export const COLLAB_TRANSITIONS = {
  submit: ['draft', 'submitted_for_review'],
  pause: ['published', 'paused'],
  unpause: ['paused', 'published'],
} as const satisfies Record<string, readonly [CollabState, CollabState]>;

/**
 * Moves a collab from the action's state to the next one. The conditional UPDATE makes it
 * race-safe: of two concurrent submits, one changes the row, the other finds it changed (422).
 */
export async function transitionCollab(
  em: Em,
  organizationId: string,
  id: string,
  action: keyof typeof COLLAB_TRANSITIONS,
): Promise<void> {
  const [from, to] = COLLAB_TRANSITIONS[action];
  const changed = await em.nativeUpdate(
    Collab,
    { id, organization: organizationId, state: from },
    { state: to, updatedAt: new Date() },
  );
  if (changed > 0) return;
  await findInOrganization(em, Collab, organizationId, id);
  throw unprocessable({ state: [`must be ${from} to ${action}`] });
}

/** Test helper: a submission; the counter is incremented in the database, exact under concurrency. */
export async function addSubmission(em: Em, organizationId: string, id: string) {
  return em.transactional(async (tem) => {
    const changed = await tem.nativeUpdate(
      Collab,
      { id, organization: organizationId },
      { submissionsCount: raw('submissions_count + 1') },
    );
    if (changed === 0) throw notFound();
    const submission = tem.create(Submission, { collab: id });
    await tem.flush();
    return { id: submission.id, created_at: iso(submission.createdAt) };
  });
}

/** Test helper: forces a state (the marketplace's review); `published_at` is set when first published. */
export async function forceCollabState(
  em: Em,
  config: Config,
  organizationId: string,
  id: string,
  state: CollabState,
) {
  const collab = await em.transactional(async (tem) => {
    const found = await findInOrganization(tem, Collab, organizationId, id, { lock: true });
    found.state = state;
    if (state === 'published') found.publishedAt ??= new Date();
    return found;
  });
  return presentCollab(collab, config.baseUrl);
}
