import * as z from 'zod';
import { component } from '../components.js';
import type { Described } from '../described.js';
import * as ex from '../examples.js';
import type { ResourceFieldDocs } from '../field-docs.js';
import { booleanInput, briefInput, idOf, oneOf, timestamp, websiteQuery } from '../primitives.js';
import { marketFields, pageFields, payloadFields, withBrief } from './organization-resource.js';

const { name, website, currency, countries, purge_banner_image } = payloadFields;

export const CollabId = idOf('CollabId', 'collab');
export type CollabId = z.infer<typeof CollabId>;

export const CollabState = component(oneOf(['draft', 'submitted_for_review', 'published', 'paused']), {
  id: 'CollabState',
  description: "A collab's state",
  examples: ['draft'],
});
export type CollabState = z.infer<typeof CollabState>;

/** A collab as listed (no `brief`). */
export const CollabSummary = z.object({
  id: CollabId,
  name: z.string(),
  state: CollabState,
  ...marketFields,
  require_boosted_ads: z.boolean(),
  requires_product_shipment: z.boolean(),
  submissions_count: z.int().nonnegative(),
  completed_count: z.int().nonnegative(),
  published_at: timestamp.nullable(),
  ...pageFields,
});
export type CollabSummary = Described<z.infer<typeof CollabSummary>, ResourceFieldDocs['CollabSummary']>;
const { brief: _brief, ...collabSummaryExample } = ex.collab;
component(CollabSummary, {
  id: 'CollabSummary',
  description: 'A collab as listed (without its brief).',
  examples: [collabSummaryExample],
});

/** A collab as shown: with `brief`, rendered and sanitized HTML. */
export const Collab = withBrief(CollabSummary);
export type Collab = Described<z.infer<typeof Collab>, ResourceFieldDocs['Collab']>;
component(Collab, {
  id: 'Collab',
  description: 'A collab with its brief, rendered to sanitized HTML.',
  examples: [ex.collab],
});

/** `collab` payload of `POST …/collabs.json`; every field is optional (defaults apply). */
export const CollabCreate = z.object({
  name,
  website,
  currency,
  countries,
  require_boosted_ads: booleanInput.optional(),
  requires_product_shipment: booleanInput.optional(),
  brief: briefInput.optional(),
});
export type CollabCreate = z.input<typeof CollabCreate>;
component(CollabCreate, {
  id: 'CollabCreate',
  description: 'Fields of a new draft collab (inside the `collab` key); every field is optional.',
  examples: [{ name: 'Summer launch', countries: ['US', 'CA'], brief: '## About the product' }],
});

/** `collab` payload of `PATCH …/collabs/:id.json`. */
export const CollabUpdate = CollabCreate.extend({ purge_banner_image });
export type CollabUpdate = z.input<typeof CollabUpdate>;
component(CollabUpdate, {
  id: 'CollabUpdate',
  description: 'Fields to change on a collab; `purge_banner_image: "1"` removes the banner.',
  examples: [{ name: 'Summer launch 2027' }],
});

/** Query of `POST …/collabs.json`: `website` prefills the draft from a product page. */
export const CollabCreateQuery = z.object({
  website: websiteQuery.optional().meta({
    description:
      'A product page (http/https) to prefill the draft from: its title, description and image; the draft is still made when it cannot be read',
  }),
});

/** What a create leaves out becomes (decisions.md §2); `currency` is the column's default, `usd`. */
export const COLLAB_DEFAULTS = {
  name: 'Untitled collab',
  countries: ['US'],
  require_boosted_ads: false,
  requires_product_shipment: false,
  brief: '## About the product\n\n## What we are looking for\n\n## Deliverables\n',
} as const;
