import * as z from 'zod';
import { component } from '../components.js';
import type { Described } from '../described.js';
import * as ex from '../examples.js';
import type { ResourceFieldDocs } from '../field-docs.js';
import {
  absoluteUrl,
  echoedUrl,
  idOf,
  oneOf,
  purgeFlag,
  text,
  timestamp,
  websiteInput,
} from '../primitives.js';

export const OrganizationId = idOf('OrganizationId', 'organization');
export type OrganizationId = z.infer<typeof OrganizationId>;

export const PrivacySetting = component(oneOf(['public', 'private', 'restricted']), {
  id: 'PrivacySetting',
  description: "An organization's privacy setting",
  examples: ['private'],
});
export type PrivacySetting = z.infer<typeof PrivacySetting>;

export const Organization = z.object({
  id: OrganizationId,
  name: z.string(),
  privacy_setting: PrivacySetting,
  website: echoedUrl.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  /** JSON address of the organization. */
  url: absoluteUrl,
  /** Omitted when no logo is attached. */
  logo_url: absoluteUrl.optional(),
});
export type Organization = Described<z.infer<typeof Organization>, ResourceFieldDocs['Organization']>;
component(Organization, {
  id: 'Organization',
  description: 'An organization (brand or agency). `logo_url` is present only when a logo was uploaded.',
  examples: [ex.organization],
});

/** `organization` payload of `POST /organizations.json`. A logo needs multipart (`logo`). */
export const OrganizationCreate = z.object({
  name: text(100),
  privacy_setting: PrivacySetting.default('private'),
  website: websiteInput.optional(),
});
export type OrganizationCreate = z.input<typeof OrganizationCreate>;
component(OrganizationCreate, {
  id: 'OrganizationCreate',
  description: 'Fields of a new organization (inside the `organization` key).',
  examples: [{ name: 'Acme Studios', privacy_setting: 'private', website: 'https://acme.example' }],
});

/** `organization` payload of `PATCH /organizations/:id.json`. */
export const OrganizationUpdate = z.object({
  name: text(100).optional(),
  privacy_setting: PrivacySetting.optional(),
  website: websiteInput.optional(),
  purge_logo: purgeFlag.optional(),
});
export type OrganizationUpdate = z.input<typeof OrganizationUpdate>;
component(OrganizationUpdate, {
  id: 'OrganizationUpdate',
  description: 'Fields to change on an organization; `purge_logo: "1"` removes the logo.',
  examples: [{ name: 'Acme Studios GmbH' }],
});
