/**
 * Payloads as a consumer with `exactOptionalPropertyTypes` writes them (`exact-optional.test.ts`
 * compiles this file so): every optional field takes `undefined` (a value a form left out, an unset
 * environment variable), the file fields (`logo`, `banner_image`) as the others.
 */
import type {
  CampaignCreateParams,
  CampaignUpdateParams,
  CollabCreateParams,
  CollabUpdateParams,
  OrganizationCreateParams,
  OrganizationUpdateParams,
} from '../../src/index.js';

const picked = (): Blob | undefined => undefined;

export const payloads = {
  organizationCreate: { name: 'Acme', website: undefined, logo: picked() },
  organizationUpdate: { name: undefined, logo: undefined },
  collabCreate: { name: undefined, banner_image: picked() },
  collabUpdate: { brief: undefined, banner_image: undefined },
  campaignCreate: { name: undefined, banner_image: picked() },
  campaignUpdate: { cpm_amount: undefined, banner_image: undefined },
} satisfies {
  organizationCreate: OrganizationCreateParams;
  organizationUpdate: OrganizationUpdateParams;
  collabCreate: CollabCreateParams;
  collabUpdate: CollabUpdateParams;
  campaignCreate: CampaignCreateParams;
  campaignUpdate: CampaignUpdateParams;
};
