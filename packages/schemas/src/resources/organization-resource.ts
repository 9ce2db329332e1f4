import * as z from 'zod';
import {
  absoluteUrl,
  countriesInput,
  countryCode,
  currencyCode,
  currencyInput,
  echoedUrl,
  purgeFlag,
  text,
  timestamp,
  websiteInput,
} from '../primitives.js';

/*
 * What a collab and a campaign, the resources an organization writes as drafts with a brief and a
 * banner, have in common on the wire: written once here, spread into each one's own schema at the
 * place its fields stand in.
 */

/** Where it is offered: the currency, the countries, the product's website. */
export const marketFields = {
  currency: currencyCode,
  countries: z.array(countryCode),
  website: echoedUrl.nullable(),
};

/** Its last fields as listed: when it was created and changed, its address, its banner. */
export const pageFields = {
  created_at: timestamp,
  updated_at: timestamp,
  url: absoluteUrl,
  banner_image_url: absoluteUrl.nullable(),
};

/** The resource as shown: the summary with `brief`, rendered and sanitized HTML. */
export const withBrief = <Shape extends z.ZodRawShape>(summary: z.ZodObject<Shape>) =>
  summary.extend({ brief: z.string() });

/**
 * Payload fields both take, with the same rules (every one optional: a create's defaults or the
 * stored value apply); each payload lists them in its own order.
 */
export const payloadFields = {
  name: text(200).optional(),
  website: websiteInput.optional(),
  currency: currencyInput.optional(),
  countries: countriesInput.optional(),
  /** Update only: `"1"` removes the banner. */
  purge_banner_image: purgeFlag.optional(),
};
