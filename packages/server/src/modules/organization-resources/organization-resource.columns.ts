import { p } from '@mikro-orm/core';

/*
 * The columns a collab and a campaign share (organization-resources/organization-resource.ts), spread into each
 * entity at the place they stand in its table.
 */

/** Where it is offered; the database default currency applies when a create leaves it out (spec). */
export const marketColumns = () => ({
  currency: p.string().length(3).defaultRaw("'usd'"),
  countries: p.array().default(['US']),
  website: p.text().nullable(),
});

/** The brief and the banner. */
export const briefColumns = () => ({
  /** Markdown as written. */
  brief: p.text(),
  /** `brief` rendered to sanitized HTML when it was written (null: written before that was done). */
  briefHtml: p.text().nullable(),
  bannerImage: p.string().length(64).nullable(),
  /** The banner's size in bytes, for the organization's limit of image bytes (null: none, or kept before sizes were). */
  bannerImageBytes: p.integer().nullable(),
});
