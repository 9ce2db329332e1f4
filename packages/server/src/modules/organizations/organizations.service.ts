import type { FieldErrors, OrganizationCreate, OrganizationUpdate } from '@app/schemas';
import { LockMode } from '@mikro-orm/core';
import type * as z from 'zod';
import type { Config } from '../../config.js';
import type { Em } from '../../db/database.js';
import type { ReadOne, ReadResult } from '../../db/reads.js';
import { notFound, throwIfInvalid, unprocessable } from '../../http/errors.js';
import { iso, resourceUrl } from '../../http/present.js';
import { campaigns } from '../campaigns/campaigns.service.js';
import { collabs } from '../collabs/collabs.service.js';
import { assignDefined, type FieldMap } from '../common/assign.js';
import { checkLimit, checkNewImage, checkUploadBytes } from '../common/limits.js';
import { readOneOrNotFound } from '../common/read-one.js';
import { addOwner, checkCallerStillAllowed, organizationsOfUser } from '../members/members.service.js';
import { checkImage, createWithAttachment, updateWithAttachment } from '../uploads/attachment.js';
import { type UploadedFile, type UploadedFiles, type UploadStore, uploadUrl } from '../uploads/uploads.js';
import { Organization } from './organization.entity.js';

const ACTIVE_SUBSCRIPTION_MESSAGE = 'Cannot delete an organization with an active subscription';
const HAS_COLLABS_MESSAGE = 'Cannot delete an organization that still has collabs';
const HAS_CAMPAIGNS_MESSAGE = 'Cannot delete an organization that still has campaigns';

type CreateInput = z.output<typeof OrganizationCreate>;
type UpdateInput = z.output<typeof OrganizationUpdate>;

/** Payload fields stored as they are: payload name → entity property. */
const ORGANIZATION_FIELDS: FieldMap<UpdateInput, Organization> = {
  name: 'name',
  privacy_setting: 'privacySetting',
  website: 'website',
};

/** The `logo` error when an uploaded logo is not an accepted image. */
function imageErrors(logo: UploadedFile | undefined): FieldErrors {
  const errors: FieldErrors = {};
  checkImage('logo', logo, errors);
  return errors;
}

export function presentOrganization(organization: Organization, baseUrl: string) {
  return {
    id: organization.id,
    name: organization.name,
    privacy_setting: organization.privacySetting,
    website: organization.website ?? null,
    created_at: iso(organization.createdAt),
    updated_at: iso(organization.updatedAt),
    url: resourceUrl(baseUrl, `/organizations/${organization.id}`),
    ...(organization.logo && { logo_url: uploadUrl(baseUrl, organization.logo) }),
  };
}

export async function listOrganizations(
  em: Em,
  userId: string,
  window: { limit: number; offset: number },
  baseUrl: string,
) {
  const { organizations, total } = await organizationsOfUser(em, userId, window);
  return { items: organizations.map((o) => presentOrganization(o, baseUrl)), total };
}

/** The organization of the URL, read with the caller (one statement; its members only). */
export const organizationRead = { entity: Organization, by: 'id' } satisfies ReadOne<'id'>;

export async function showOrganization(read: ReadResult, baseUrl: string) {
  return presentOrganization(readOneOrNotFound<Organization>(read), baseUrl);
}

/** Creates an organization whose owner is the creator, both rows in one transaction. */
export async function createOrganization(
  em: Em,
  config: Config,
  uploads: UploadStore,
  userId: string,
  input: CreateInput,
  files: UploadedFiles,
) {
  throwIfInvalid(imageErrors(files.logo));
  return createWithAttachment(uploads, files.logo, (logo) =>
    em.transactional(async (tem) => {
      await checkLimit(tem, 'organizations', userId, config.limits);
      const organization = tem.create(Organization, {
        name: input.name,
        privacySetting: input.privacy_setting,
        website: input.website ?? null,
        logo: logo?.name ?? null,
        logoBytes: logo?.bytes ?? null,
      });
      await checkNewImage(tem, organization.id, logo, 'logo', config.limits);
      addOwner(tem, organization.id, userId);
      await tem.flush();
      return presentOrganization(organization, config.baseUrl);
    }),
  );
}

/**
 * Updates an organization. A new logo replaces the old one; `purge_logo: "1"` removes it (the
 * attachment rule, uploads/attachment.ts). The row is locked so that two concurrent logo changes
 * cannot both keep the same old file and orphan one of the new ones. The caller is checked again
 * to be an admin in the transaction: the logo's body may have taken seconds to arrive.
 */
export async function updateOrganization(
  em: Em,
  config: Config,
  uploads: UploadStore,
  id: string,
  input: UpdateInput,
  files: UploadedFiles,
  caller: { userId: string; signal?: AbortSignal },
) {
  const change = { file: files.logo, purge: input.purge_logo };
  const organization = await updateWithAttachment(
    em,
    uploads,
    { name: 'logo', bytes: 'logoBytes' },
    change,
    async (tem) => {
      await checkCallerStillAllowed(tem, id, caller, 'admin');
      const found = await tem.findOne(Organization, id, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!found) throw notFound();
      throwIfInvalid(imageErrors(files.logo));
      assignDefined(tem, found, input, ORGANIZATION_FIELDS);
      return found;
    },
    (tem, bytes) => checkUploadBytes(tem, id, { ...bytes, field: 'logo' }, config.limits),
  );
  return presentOrganization(organization, config.baseUrl);
}

/**
 * Deletes an organization (the owner's call). Blocked while a subscription is active or any collab
 * or campaign remains. The row lock makes a concurrent collab or campaign insert wait (its foreign
 * key check needs the row), so nothing can slip in between the checks and the delete.
 */
export async function deleteOrganization(em: Em, uploads: UploadStore, id: string): Promise<void> {
  const logo = await em.transactional(async (tem) => {
    const organization = await tem.findOne(Organization, id, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!organization) throw notFound();
    const base: string[] = [];
    if (organization.subscriptionActive) base.push(ACTIVE_SUBSCRIPTION_MESSAGE);
    if (await collabs.existIn(tem, id)) base.push(HAS_COLLABS_MESSAGE);
    if (await campaigns.existIn(tem, id)) base.push(HAS_CAMPAIGNS_MESSAGE);
    if (base.length > 0) throw unprocessable({ base });
    // Memberships and join requests go with it (foreign keys cascade).
    await tem.nativeDelete(Organization, { id });
    return organization.logo ?? null;
  });
  await uploads.remove(logo);
}

/** Sets whether the organization has an active subscription (test helpers). */
export async function setSubscription(em: Em, id: string, active: boolean) {
  const updated = await em.nativeUpdate(Organization, { id }, { subscriptionActive: active });
  if (updated === 0) throw notFound();
  return { active };
}
