import { COLLAB_DEFAULTS, type CollabState, type CollabUpdate } from '@app/schemas';
import { raw } from '@mikro-orm/core';
import type * as z from 'zod';
import type { Config } from '../../config.js';
import type { Em } from '../../db/database.js';
import { iso, isoOrNull } from '../../http/present.js';
import type { FieldMap } from '../common/assign.js';
import {
  type DraftRequest,
  organizationResource,
  presentPageFields,
} from '../organization-resources/organization-resource.js';
import { Collab } from './collab.entity.js';
import { Submission } from './submission.entity.js';
import { prefillFromWebsite } from './website-prefill.js';

/*
 * Collabs: their fields, what a draft starts as (a `website` prefill, else the defaults), and
 * their transitions. The create, update, delete and transitions themselves are the shared ones of
 * a resource in an organization (organization-resources/organization-resource.ts).
 */

/** The parsed `collab` payload (create fields, plus `purge_banner_image` on update). */
type CollabInput = z.output<typeof CollabUpdate>;

/** Payload fields a write stores as they are: payload name → entity property. */
const COLLAB_FIELDS: FieldMap<CollabInput, Collab> = {
  name: 'name',
  website: 'website',
  currency: 'currency',
  countries: 'countries',
  require_boosted_ads: 'requireBoostedAds',
  requires_product_shipment: 'requiresProductShipment',
  brief: 'brief',
};

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
    ...presentPageFields(collab, baseUrl, 'collabs'),
  };
}

/** The collab transitions of the API: action → from, to (decisions.md §2). */
const COLLAB_TRANSITIONS = {
  submit: { from: 'draft', to: 'submitted_for_review' },
  pause: { from: 'published', to: 'paused' },
  unpause: { from: 'paused', to: 'published' },
} as const;

/**
 * Collabs of an organization. A create takes each field from the payload, else from the `website`
 * page (prefill), else from the defaults; `currency` left out takes the column's default (spec).
 * Only a draft without submissions may be deleted (spec rule 4).
 */
export const collabs = organizationResource({
  entity: Collab,
  present: presentCollabSummary,
  listOmits: ['brief', 'briefHtml'],
  limit: 'collabsPerOrganization',
  fields: COLLAB_FIELDS,
  async draft(
    input: CollabInput | undefined,
    { config, query, holdBodyBytes }: DraftRequest<{ website?: string | undefined }>,
  ) {
    const prefill = query.website
      ? await prefillFromWebsite(query.website, {
          allowPrivate: config.prefillAllowPrivate,
          maxImageBytes: config.maxUploadBytes,
          hold: holdBodyBytes,
        })
      : null;
    return {
      brief: input?.brief ?? prefill?.brief ?? COLLAB_DEFAULTS.brief,
      banner: prefill?.banner,
      row: {
        name: prefill?.name ?? COLLAB_DEFAULTS.name,
        countries: prefill?.countries ?? [...COLLAB_DEFAULTS.countries],
        website: prefill?.website ?? null,
        requireBoostedAds: COLLAB_DEFAULTS.require_boosted_ads,
        requiresProductShipment: COLLAB_DEFAULTS.requires_product_shipment,
      },
    };
  },
  lifecycle: 'state',
  dependents: {
    entity: Submission,
    parent: 'collab',
    message: 'Cannot delete a collab that has submissions',
  },
  transitions: COLLAB_TRANSITIONS,
});

/** Test helper: a submission; the counter is incremented in the database, exact under concurrency. */
export async function addSubmission(em: Em, organizationId: string, id: string) {
  const submission = await collabs.addDependent(
    em,
    organizationId,
    id,
    { submissionsCount: raw('submissions_count + 1') },
    (tem) => tem.create(Submission, { collab: id }),
  );
  return { id: submission.id, created_at: iso(submission.createdAt) };
}

/** Test helper: forces a state (the marketplace's review); `published_at` is set when first published. */
export const forceCollabState = (
  em: Em,
  config: Config,
  organizationId: string,
  id: string,
  state: CollabState,
) =>
  collabs.force(em, config, organizationId, id, (found) => {
    found.state = state;
    if (state === 'published') found.publishedAt ??= new Date();
  });
