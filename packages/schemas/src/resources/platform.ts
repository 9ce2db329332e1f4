import * as z from 'zod';
import { component } from '../components.js';
import { typeError } from '../primitives.js';

/** Every platform identifier the marketplace knows. */
export const PlatformId = component(
  z.enum(['youtube', 'x', 'twitch', 'tiktok', 'instagram'], {
    error: typeError('is not a known platform (youtube, x, twitch, tiktok, instagram)'),
  }),
  { id: 'PlatformId', description: 'A platform the marketplace knows', examples: ['youtube'] },
);
export type PlatformId = z.infer<typeof PlatformId>;

/** Platforms that connect only through a browser OAuth flow, never through the API. */
export const OAUTH_ONLY_PLATFORMS: ReadonlySet<PlatformId> = new Set(['tiktok', 'instagram']);

/** Platforms an account is connected to by URL through the API (`POST /me/social_accounts.json`). */
export const URL_PLATFORMS: readonly PlatformId[] = PlatformId.options.filter(
  (id) => !OAUTH_ONLY_PLATFORMS.has(id),
);

/**
 * Hosts (after dropping `www.`/`m.`/`mobile.`) on which an `account_url` of each URL platform may
 * live; the first is the platform's canonical host, which every alias is normalised to.
 */
const PLATFORM_HOSTS: Readonly<Record<'youtube' | 'x' | 'twitch', readonly string[]>> = {
  youtube: ['youtube.com'],
  x: ['x.com', 'twitter.com'],
  twitch: ['twitch.tv'],
};

export type ParsedAccountUrl =
  | { ok: true; accountUrl: string; uid: string }
  | { ok: false; field: 'platform_id' | 'account_url'; message: string };

const HANDLE = /^[A-Za-z0-9_.-]{1,100}$/;

/**
 * The account a (decoded) path names: its `uid` as written, and its canonical path. Handles,
 * usernames and YouTube's legacy `/c/` and `/user/` names are case-insensitive on their platforms
 * and folded to lowercase; a YouTube channel id (`/channel/UC…`) is case-sensitive and kept.
 */
function accountFromPath(
  platform: 'youtube' | 'x' | 'twitch',
  segments: string[],
): { uid: string; path: string } | null {
  const [first, second] = segments;
  if (first === undefined) return null;
  if (platform === 'youtube') {
    if (segments.length === 1 && first.startsWith('@') && HANDLE.test(first.slice(1)))
      return { uid: first, path: `/${first.toLowerCase()}` };
    if (segments.length === 2 && first === 'channel' && second && HANDLE.test(second))
      return { uid: second, path: `/channel/${second}` };
    if (segments.length === 2 && (first === 'c' || first === 'user') && second && HANDLE.test(second))
      return { uid: second, path: `/${first}/${second.toLowerCase()}` };
    return null;
  }
  if (segments.length !== 1 || !HANDLE.test(first)) return null;
  return { uid: first, path: `/${first.toLowerCase()}` };
}

/**
 * Checks an `account_url` for a platform and returns its normalised form and the `uid` read from
 * it. The normalised form names one account one way: https, the platform's canonical host (no
 * `www.`/`m.`, `twitter.com` → `x.com`), the percent-decoded path with case-insensitive names in
 * lowercase, no trailing slash, query or fragment. Global uniqueness is decided on it.
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
  const url = httpsUrl(rawUrl);
  if (typeof url === 'string') return { ok: false, field: 'account_url', message: url };
  const host = url.hostname.toLowerCase().replace(/^(www|m|mobile)\./, '');
  const hosts = PLATFORM_HOSTS[id];
  if (!hosts.includes(host))
    return {
      ok: false,
      field: 'account_url',
      message: `must be on ${hosts.join(' or ')}`,
    };
  const segments = url.pathname.split('/').filter((s) => s !== '');
  const account = accountFromPath(id, segments.map(decodeURIComponentSafe));
  if (account === null)
    return { ok: false, field: 'account_url', message: 'does not name an account on this platform' };
  return { ok: true, accountUrl: `https://${hosts[0]}${account.path}`, uid: account.uid };
}

/**
 * What is wrong with an `account_url` whatever its platform (not a URL, not https, credentials or
 * a port), or `null`: reported beside an unknown platform, so that both are listed at once.
 */
export function accountUrlProblem(rawUrl: string): string | null {
  const url = httpsUrl(rawUrl);
  return typeof url === 'string' ? url : null;
}

/** The URL, or the message of the first platform-independent rule it breaks. */
function httpsUrl(rawUrl: string): URL | string {
  let url: URL;
  try {
    url = new URL(rawUrl.trim());
  } catch {
    return 'is not a valid URL';
  }
  if (url.protocol !== 'https:') return 'must be an https URL';
  if (url.username || url.password || url.port) return 'must not contain credentials or a port';
  return url;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
