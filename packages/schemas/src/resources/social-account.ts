import * as z from 'zod';
import { annotate, component } from '../components.js';
import type { Described } from '../described.js';
import * as ex from '../examples.js';
import type { ResourceFieldDocs } from '../field-docs.js';
import { absoluteUrl, idOf, oneOf, timestamp, typeError } from '../primitives.js';
import { accountUrlProblem, PlatformId, parseAccountUrl, URL_PLATFORMS } from './platform.js';

export const SocialAccountId = idOf('SocialAccountId', 'social account');
export type SocialAccountId = z.infer<typeof SocialAccountId>;

export const SocialAccountStatus = component(oneOf(['pending', 'verified', 'failed']), {
  id: 'SocialAccountStatus',
  description: "Where a social account's verification stands",
  examples: ['pending'],
});
export type SocialAccountStatus = z.infer<typeof SocialAccountStatus>;

const decimalString = z.string().regex(/^-?\d+(\.\d+)?$/);

export const SocialAccount = z.object({
  id: SocialAccountId,
  platform_id: PlatformId,
  account_url: absoluteUrl,
  uid: z.string(),
  status: SocialAccountStatus,
  /** From the latest snapshot; null until the first sync. */
  subscriber_count: z.int().nonnegative().nullable(),
  view_count: z.int().nonnegative().nullable(),
  video_count: z.int().nonnegative().nullable(),
  likes_count: z.int().nonnegative().nullable(),
  /** A decimal number written as a string, e.g. `"4.25"`. */
  engagement_rate: decimalString.nullable(),
  last_synced_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  url: absoluteUrl,
});
export type SocialAccount = Described<z.infer<typeof SocialAccount>, ResourceFieldDocs['SocialAccount']>;
component(SocialAccount, {
  id: 'SocialAccount',
  description: "One of the caller's social accounts; stats are null until the first sync.",
  examples: [ex.socialAccount],
});

/**
 * `social_account` payload of `POST /me/social_accounts.json`. Only URL platforms (youtube, x,
 * twitch) are accepted; the output carries the normalised `account_url` and the `uid` read from it.
 */
export const SocialAccountCreate = z
  .object({
    // Any string reaches the platform check (an unknown or OAuth-only platform is `422` on it);
    // the published schema lists the platforms that connect by URL.
    platform_id: annotate(z.string({ error: typeError('must be a string') }), {
      description: 'The platform (tiktok and instagram connect through the browser, not the API)',
      enum: URL_PLATFORMS,
    }),
    account_url: z.string({ error: typeError('must be a string') }).max(2048, {
      error: 'is too long (maximum is 2048 characters)',
    }),
  })
  .transform((v, ctx) => {
    const parsed = parseAccountUrl(v.platform_id, v.account_url);
    if (!parsed.ok) {
      ctx.addIssue({ code: 'custom', path: [parsed.field], message: parsed.message });
      // Every broken field at once: a URL broken on any platform is named beside the platform.
      const urlProblem = parsed.field === 'platform_id' ? accountUrlProblem(v.account_url) : null;
      if (urlProblem) ctx.addIssue({ code: 'custom', path: ['account_url'], message: urlProblem });
      return z.NEVER;
    }
    return {
      platform_id: v.platform_id as PlatformId,
      account_url: parsed.accountUrl,
      uid: parsed.uid,
    };
  });
export type SocialAccountCreate = z.input<typeof SocialAccountCreate>;
component(SocialAccountCreate, {
  id: 'SocialAccountCreate',
  description: 'A social account to connect by URL (YouTube, X, Twitch).',
  examples: [{ platform_id: 'youtube', account_url: 'https://youtube.com/@acme' }],
});
