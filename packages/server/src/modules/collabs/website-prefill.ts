import { COLLAB_DEFAULTS, isCountryCode } from '@app/schemas';
import { Parser } from 'htmlparser2';
import { HttpError } from '../../http/errors.js';
import type { UploadedFile } from '../uploads/uploads.js';
import { IMAGE_TYPES, sniffImage } from '../uploads/uploads.js';
import { type GuardedFetchOptions, guardedFetch } from './guarded-fetch.js';

/*
 * `POST …/collabs.json?website=URL` (spec, collab rule 3): a draft prefilled from a product page.
 * The page is fetched with the SSRF protections of guardedFetch and its Open Graph tags read.
 * Whatever goes wrong (refused address, timeout, not HTML, no tags), the caller gets `null` and
 * creates the draft from the defaults alone; but a full budget of bodies in memory is the
 * create's `503` (PrefillOptions.hold).
 */

export const PREFILL_LIMITS = {
  timeoutMs: 3_000,
  maxPageBytes: 1024 * 1024,
  maxRedirects: 3,
} as const;

/** What the page gives: it replaces the generated fields, and explicit payload fields win over it. */
export interface WebsitePrefill {
  website: string;
  name?: string;
  brief?: string;
  countries?: string[];
  banner?: UploadedFile;
}

export interface PrefillOptions {
  allowPrivate: boolean;
  /** Largest banner accepted (`MARKETPLACE_MAX_UPLOAD_BYTES`). */
  maxImageBytes: number;
  timeoutMs?: number;
  resolve?: GuardedFetchOptions['resolve'];
  /**
   * Counts what is downloaded against the server's budget of bodies in memory (the request's
   * `holdBodyBytes`): a page and its image are up to 1 MiB and `maxImageBytes` a request, which
   * its caller sends no byte of. Full now: the create is `503` (a retry may find room); a budget
   * smaller than what it downloads: no prefill.
   */
  hold?: (bytes: number) => void;
}

interface PageTags {
  title?: string;
  ogTitle?: string;
  ogDescription?: string;
  ogImage?: string;
  ogLocale?: string;
}

/** Reads `<title>` and the Open Graph tags of a page (attribute values come entity-decoded). */
export function readPageTags(html: string): PageTags {
  const tags: PageTags = {};
  let titleText: string | undefined;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === 'title' && tags.title === undefined) titleText = '';
        if (name !== 'meta') return;
        const key = (attribs.property ?? attribs.name ?? '').toLowerCase();
        const content = attribs.content;
        if (content === undefined) return;
        if (key === 'og:title') tags.ogTitle ??= content;
        else if (key === 'og:description') tags.ogDescription ??= content;
        else if (key === 'og:image' || key === 'og:image:url') tags.ogImage ??= content;
        else if (key === 'og:locale') tags.ogLocale ??= content;
      },
      ontext(text) {
        if (titleText !== undefined) titleText += text;
      },
      onclosetag(name) {
        if (name === 'title' && titleText !== undefined) {
          tags.title = titleText;
          titleText = undefined;
        }
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return tags;
}

/**
 * Whitespace folded, at most `max` UTF-16 units (the schema's count) without cutting a surrogate
 * pair: an emoji cut in half would be a lone surrogate, which the `201` echoed and PostgreSQL
 * stored as U+FFFD (decisions.md, lone surrogates).
 */
const clean = (text: string | undefined, max: number): string | undefined => {
  const folded = text?.replace(/\s+/g, ' ').trim();
  if (!folded) return undefined;
  const end = folded.length > max && isHighSurrogate(folded.charCodeAt(max - 1)) ? max - 1 : max;
  const cleaned = folded.slice(0, end).trim();
  return cleaned ? cleaned : undefined;
};

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** The `charset` of a Content-Type header, and of a `<meta charset>` or `http-equiv` tag. */
const HEADER_CHARSET = /charset\s*=\s*["']?([\w.:-]+)/i;
const META_CHARSET = /<meta\b[^>]*?charset\s*=\s*["']?([\w.:-]+)/i;

/**
 * The page's text in the character set it declares: its Content-Type header's `charset`, else a
 * `<meta>` tag's in its first 1 024 bytes (the HTML standard's prescan, in short), else UTF-8. A
 * label the platform does not know is read as UTF-8.
 */
function decodePage(data: Uint8Array, contentType: string): string {
  const label =
    HEADER_CHARSET.exec(contentType)?.[1] ??
    META_CHARSET.exec(Buffer.from(data.subarray(0, 1024)).toString('latin1'))?.[1];
  try {
    return new TextDecoder(label ?? 'utf-8').decode(data);
  } catch {
    return new TextDecoder().decode(data);
  }
}

/** The page text goes into Markdown as text: HTML in it is shown, never interpreted. */
const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The default brief template with the product description under its first heading. */
function briefWith(description: string): string {
  const [first, ...rest] = COLLAB_DEFAULTS.brief.split('\n\n');
  return [first, escapeHtml(description), ...rest].join('\n\n');
}

/** `en_GB` → `['GB']` when the region is a known country. */
function countriesOf(locale: string | undefined): string[] | undefined {
  const region = locale?.trim().split(/[_-]/)[1]?.toUpperCase();
  return region && isCountryCode(region) ? [region] : undefined;
}

/** A fetch of the prefill (the page, then its image): the same limits, a size cap and an `Accept` each. */
const prefillFetch = (
  url: string | URL,
  options: PrefillOptions,
  request: { maxBytes: number; accept: string },
) =>
  guardedFetch(url, {
    allowPrivate: options.allowPrivate,
    timeoutMs: options.timeoutMs ?? PREFILL_LIMITS.timeoutMs,
    maxRedirects: PREFILL_LIMITS.maxRedirects,
    ...request,
    ...(options.resolve && { resolve: options.resolve }),
    ...(options.hold && { hold: options.hold }),
  });

/** A failure the prefill gives up on (the draft from the defaults), unless it is a `503`: passed on. */
function unlessUnavailable(error: unknown): void {
  if (error instanceof HttpError && error.statusCode === 503) throw error;
}

async function downloadImage(source: string, page: URL, options: PrefillOptions) {
  try {
    const url = new URL(source, page);
    const image = await prefillFetch(url, options, {
      maxBytes: options.maxImageBytes,
      accept: IMAGE_TYPES,
    });
    // Checked by content like any upload; too large or not an accepted image: no banner.
    const kind = image.complete ? sniffImage(image.data) : null;
    return kind ? { data: image.data, filename: `og-image.${kind.ext}`, mimetype: kind.type } : undefined;
  } catch (error) {
    unlessUnavailable(error);
    return undefined;
  }
}

/** Fetches a product page and turns it into collab fields; `null` when that is not possible. */
export async function prefillFromWebsite(
  website: string,
  options: PrefillOptions,
): Promise<WebsitePrefill | null> {
  let html: string;
  let pageUrl: URL;
  try {
    const page = await prefillFetch(website, options, {
      maxBytes: PREFILL_LIMITS.maxPageBytes,
      accept: 'text/html, application/xhtml+xml',
    });
    if (page.contentType && !/^(text\/html|application\/xhtml\+xml)\b/i.test(page.contentType)) return null;
    // A page cut at the cap is still read: the tags are in its head.
    html = decodePage(page.data, page.contentType);
    pageUrl = page.url;
  } catch (error) {
    unlessUnavailable(error);
    return null;
  }
  const tags = readPageTags(html);
  const name = clean(tags.ogTitle, 200) ?? clean(tags.title, 200);
  const description = clean(tags.ogDescription, 5_000);
  const countries = countriesOf(tags.ogLocale);
  const banner = tags.ogImage ? await downloadImage(tags.ogImage.trim(), pageUrl, options) : undefined;
  return {
    website,
    ...(name && { name }),
    ...(description && { brief: briefWith(description) }),
    ...(countries && { countries }),
    ...(banner && { banner }),
  };
}
