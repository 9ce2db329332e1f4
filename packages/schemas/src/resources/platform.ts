import { z } from 'zod';
import { typeError } from '../primitives.js';

/** Every platform identifier the marketplace knows. */
export const PlatformId = z.enum(['youtube', 'x', 'twitch', 'tiktok', 'instagram'], {
  error: typeError('is not a known platform (youtube, x, twitch, tiktok, instagram)'),
});
export type PlatformId = z.infer<typeof PlatformId>;

/** Platforms that connect only through a browser OAuth flow, never through the API. */
export const OAUTH_ONLY_PLATFORMS: ReadonlySet<PlatformId> = new Set(['tiktok', 'instagram']);

/** Hosts (after dropping `www.`/`m.`) on which an `account_url` of each URL platform may live. */
const PLATFORM_HOSTS: Readonly<Record<'youtube' | 'x' | 'twitch', readonly string[]>> = {
  youtube: ['youtube.com'],
  x: ['x.com', 'twitter.com'],
  twitch: ['twitch.tv'],
};

export type ParsedAccountUrl =
  | { ok: true; accountUrl: string; uid: string }
  | { ok: false; field: 'platform_id' | 'account_url'; message: string };

const HANDLE = /^[A-Za-z0-9_.-]{1,100}$/;

function handleFromPath(platform: 'youtube' | 'x' | 'twitch', segments: string[]): string | null {
  const [first, second] = segments;
  if (first === undefined) return null;
  if (platform === 'youtube') {
    if (segments.length === 1 && first.startsWith('@') && HANDLE.test(first.slice(1))) return first;
    if (segments.length === 2 && ['channel', 'c', 'user'].includes(first) && second && HANDLE.test(second))
      return second;
    return null;
  }
  if (segments.length !== 1 || !HANDLE.test(first)) return null;
  return first;
}

/**
 * Checks an `account_url` for a platform and returns its normalised form (https, lowercase host
 * without `www.`/`m.`, no trailing slash, query or fragment) and the `uid` read from it.
 * The normalised form is what global uniqueness is decided on.
 */
export function parseAccountUrl(platformId: string, rawUrl: string): ParsedAccountUrl {
  const platform = PlatformId.safeParse(platformId);
  if (!platform.success) return { ok: false, field: 'platform_id', message: 'is not a known platform' };
  if (OAUTH_ONLY_PLATFORMS.has(platform.data))
    return {
      ok: false,
      field: 'platform_id',
      message: 'connects through the browser OAuth flow and cannot be added through the API',
    };
  const id = platform.data as 'youtube' | 'x' | 'twitch';
  let url: URL;
  try {
    url = new URL(rawUrl.trim());
  } catch {
    return { ok: false, field: 'account_url', message: 'is not a valid URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, field: 'account_url', message: 'must be an https URL' };
  if (url.username || url.password || url.port)
    return { ok: false, field: 'account_url', message: 'must not contain credentials or a port' };
  const host = url.hostname.toLowerCase().replace(/^(www|m|mobile)\./, '');
  if (!PLATFORM_HOSTS[id].includes(host))
    return {
      ok: false,
      field: 'account_url',
      message: `must be on ${PLATFORM_HOSTS[id].join(' or ')}`,
    };
  const segments = url.pathname.split('/').filter((s) => s !== '');
  const uid = handleFromPath(id, segments.map(decodeURIComponentSafe));
  if (uid === null)
    return { ok: false, field: 'account_url', message: 'does not name an account on this platform' };
  return { ok: true, accountUrl: `https://${host}/${segments.join('/')}`, uid };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
