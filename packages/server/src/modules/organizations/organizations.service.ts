import type { OrganizationCreate, OrganizationUpdate } from '@app/schemas';
import { LockMode } from '@mikro-orm/core';
import type { z } from 'zod';
import type { Em } from '../../db/database.js';
import { notFound, unprocessable } from '../../http/errors.js';
import { iso, resourceUrl } from '../../http/present.js';
import { organizationHasCampaigns } from '../campaigns/campaigns.service.js';
import { organizationHasCollabs } from '../collabs/collabs.service.js';
import { checkLimit, type Limits } from '../common/limits.js';
import { addOwner, organizationsOfUser } from '../members/members.service.js';
import type { UploadedFile } from '../uploads/uploads.js';
import { IMAGE_TYPE_MESSAGE, sniffImage, type UploadStore, uploadUrl } from '../uploads/uploads.js';
import { Organization } from './organization.entity.js';

const ACTIVE_SUBSCRIPTION_MESSAGE = 'Cannot delete an organization with an active subscription';
const HAS_COLLABS_MESSAGE = 'Cannot delete an organization that still has collabs';
const HAS_CAMPAIGNS_MESSAGE = 'Cannot delete an organization that still has campaigns';

type CreateInput = z.output<typeof OrganizationCreate>;
type UpdateInput = z.output<typeof OrganizationUpdate>;

/** Where the organization module reads and writes its files. */
export interface Storage {
  baseUrl: string;
  uploads: UploadStore;
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

/** A `422` on `logo` unless the upload is an accepted image (checked by content). */
function checkLogo(logo: UploadedFile | undefined): void {
  if (logo && !sniffImage(logo.data)) throw unprocessable({ logo: [IMAGE_TYPE_MESSAGE] });
}

/**
 * Stores a new logo (if any) and runs `work`; when `work` fails, the stored file is removed again
 * so that a failed request leaves nothing behind.
 */
async function withStoredLogo<T>(
  storage: Storage,
  logo: UploadedFile | undefined,
  work: (stored: string | null) => Promise<T>,
): Promise<T> {
  checkLogo(logo);
  const stored = logo ? await storage.uploads.save(logo) : null;
  try {
    return await work(stored);
  } catch (error) {
    await storage.uploads.remove(stored);
    throw error;
  }
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

export async function showOrganization(em: Em, id: string, baseUrl: string) {
  const organization = await em.findOne(Organization, id);
  if (!organization) throw notFound();
  return presentOrganization(organization, baseUrl);
}

/** Creates an organization whose owner is the creator, both rows in one transaction. */
export async function createOrganization(
  em: Em,
  userId: string,
  input: CreateInput,
  logo: UploadedFile | undefined,
  storage: Storage,
  limits: Limits,
) {
  return withStoredLogo(storage, logo, (stored) =>
    em.transactional(async (tem) => {
      await checkLimit(tem, 'organizations', userId, limits);
      const organization = tem.create(Organization, {
        name: input.name,
        privacySetting: input.privacy_setting,
        website: input.website ?? null,
        logo: stored,
      });
      addOwner(tem, organization.id, userId);
      await tem.flush();
      return presentOrganization(organization, storage.baseUrl);
    }),
  );
}

/**
 * Updates an organization. A new logo replaces the old one; `purge_logo: "1"` removes it. The old
 * file is deleted only once the change is committed. The row is locked so that two concurrent
 * logo changes cannot both keep the same old file and orphan one of the new ones.
 */
export async function updateOrganization(
  em: Em,
  id: string,
  input: UpdateInput,
  logo: UploadedFile | undefined,
  storage: Storage,
) {
  const { result, replaced } = await withStoredLogo(storage, logo, (stored) =>
    em.transactional(async (tem) => {
      const organization = await tem.findOne(Organization, id, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!organization) throw notFound();
      const previous = organization.logo ?? null;
      if (input.name !== undefined) organization.name = input.name;
      if (input.privacy_setting !== undefined) organization.privacySetting = input.privacy_setting;
      if (input.website !== undefined) organization.website = input.website;
      if (input.purge_logo === '1') organization.logo = null;
      if (stored) organization.logo = stored;
      await tem.flush();
      return {
        result: presentOrganization(organization, storage.baseUrl),
        replaced: previous !== organization.logo ? previous : null,
      };
    }),
  );
  await storage.uploads.remove(replaced);
  return result;
}

/**
 * Deletes an organization (the owner's call). Blocked while a subscription is active or any collab
 * or campaign remains. The row lock makes a concurrent collab or campaign insert wait (its foreign
 * key check needs the row), so nothing can slip in between the checks and the delete.
 */
export async function deleteOrganization(em: Em, id: string, storage: Storage): Promise<void> {
  const logo = await em.transactional(async (tem) => {
    const organization = await tem.findOne(Organization, id, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!organization) throw notFound();
    const base: string[] = [];
    if (organization.subscriptionActive) base.push(ACTIVE_SUBSCRIPTION_MESSAGE);
    if (await organizationHasCollabs(tem, id)) base.push(HAS_COLLABS_MESSAGE);
    if (await organizationHasCampaigns(tem, id)) base.push(HAS_CAMPAIGNS_MESSAGE);
    if (base.length > 0) throw unprocessable({ base });
    // Memberships and join requests go with it (foreign keys cascade).
    await tem.nativeDelete(Organization, { id });
    return organization.logo ?? null;
  });
  await storage.uploads.remove(logo);
}

/** Sets whether the organization has an active subscription (test helpers). */
export async function setSubscription(em: Em, id: string, active: boolean) {
  const updated = await em.nativeUpdate(Organization, { id }, { subscriptionActive: active });
  if (updated === 0) throw notFound();
  return { active };
}
