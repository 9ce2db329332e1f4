import type { PlatformId, SocialAccountStatus } from '@app/schemas';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Limits } from '../../config.js';
import type { Em } from '../../db/database.js';
import { notFound, unprocessable } from '../../http/errors.js';
import { iso, isoOrNull, resourceUrl } from '../../http/present.js';
import { flushWithinLimit } from '../common/limits.js';
import { SocialAccount } from './social-account.entity.js';

/** `"4.2500"` (numeric(12,4) as stored) → `"4.25"`; `"5.0000"` → `"5"`. */
const trimDecimal = (value: string): string => (value.includes('.') ? value.replace(/\.?0+$/, '') : value);

export function presentSocialAccount(baseUrl: string, account: SocialAccount) {
  return {
    id: account.id,
    platform_id: account.platformId as 'youtube' | 'x' | 'twitch',
    account_url: account.accountUrl,
    uid: account.uid,
    status: account.status,
    subscriber_count: account.subscriberCount ?? null,
    view_count: account.viewCount ?? null,
    video_count: account.videoCount ?? null,
    likes_count: account.likesCount ?? null,
    engagement_rate: account.engagementRate == null ? null : trimDecimal(account.engagementRate),
    last_synced_at: isoOrNull(account.lastSyncedAt),
    created_at: iso(account.createdAt),
    updated_at: iso(account.updatedAt),
    url: resourceUrl(baseUrl, `/me/social_accounts/${account.id}`),
  };
}

export async function listSocialAccounts(em: Em, userId: string, window: { limit: number; offset: number }) {
  return em.findAndCount(
    SocialAccount,
    { user: userId },
    { orderBy: { createdAt: 'asc', id: 'asc' }, ...window },
  );
}

/** One of the user's accounts; another user's account is a `404`, never a `403`. */
export async function findOwnSocialAccount(em: Em, userId: string, id: string): Promise<SocialAccount> {
  const account = await em.findOne(SocialAccount, { id, user: userId });
  if (!account) throw notFound();
  return account;
}

/**
 * Connects an account. The payload is already normalised (`account_url`, `uid`); uniqueness is
 * decided by the database's unique index, so two concurrent creates cannot both succeed.
 */
export async function createSocialAccount(
  em: Em,
  userId: string,
  input: { platform_id: PlatformId; account_url: string; uid: string },
  limits: Limits,
): Promise<SocialAccount> {
  const account = em.create(SocialAccount, {
    user: userId,
    platformId: input.platform_id,
    accountUrl: input.account_url,
    uid: input.uid,
  });
  try {
    await flushWithinLimit(em, 'socialAccounts', userId, limits);
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw unprocessable({ account_url: ['has already been taken'] });
    throw error;
  }
  return account;
}

export async function deleteSocialAccount(em: Em, userId: string, id: string): Promise<void> {
  const deleted = await em.nativeDelete(SocialAccount, { id, user: userId });
  if (deleted === 0) throw notFound();
}

/** Largest `engagement_rate` the numeric(12,4) column holds. */
export const MAX_ENGAGEMENT_RATE = 99_999_999.9999;

export interface SyncSnapshot {
  status?: SocialAccountStatus | undefined;
  subscriber_count?: number | null | undefined;
  view_count?: number | null | undefined;
  video_count?: number | null | undefined;
  likes_count?: number | null | undefined;
  engagement_rate?: number | string | null | undefined;
}

/** The column's form of a rate; `toFixed` also writes tiny numbers (`1e-7`) as plain decimals. */
const decimalOf = (rate: number | string | null): string | null =>
  typeof rate === 'number' ? rate.toFixed(4) : rate;

/**
 * Records a stats snapshot (test helpers): the fields given replace the stored ones (null clears
 * one), fields left out keep their value; `last_synced_at` becomes now.
 */
export async function syncSocialAccount(em: Em, id: string, snapshot: SyncSnapshot): Promise<SocialAccount> {
  const rate = snapshot.engagement_rate;
  if (rate != null && Number(rate) > MAX_ENGAGEMENT_RATE)
    throw unprocessable({ engagement_rate: [`must be less than or equal to ${MAX_ENGAGEMENT_RATE}`] });
  const account = await em.findOne(SocialAccount, { id });
  if (!account) throw notFound();
  const given = <T>(value: T | undefined, current: T): T => (value === undefined ? current : value);
  em.assign(account, {
    status: given(snapshot.status, account.status),
    subscriberCount: given(snapshot.subscriber_count, account.subscriberCount),
    viewCount: given(snapshot.view_count, account.viewCount),
    videoCount: given(snapshot.video_count, account.videoCount),
    likesCount: given(snapshot.likes_count, account.likesCount),
    engagementRate: rate === undefined ? account.engagementRate : decimalOf(rate),
    lastSyncedAt: new Date(),
  });
  await em.flush();
  return account;
}
