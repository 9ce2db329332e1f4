import * as z from 'zod';
import { annotate } from './components.js';
import { COUNTRY_CODES } from './countries.js';
import { knownFastCheck } from './fast-check.js';

export { COUNTRY_CODES };

/** Page size of every collection endpoint (spec: "Page size is fixed at 20"). */
export const PAGE_SIZE = 20;

/** Largest amount in a monetary field, in the currency's minor unit (decisions.md §2). */
export const MAX_AMOUNT = 1_000_000_000_000;

/** Largest Markdown `brief` accepted on input (decisions.md §2). */
export const MAX_BRIEF_LENGTH = 20_000;

const BLANK = "can't be blank";

/**
 * The message of a type error: "can't be blank" when the field is missing, `message` when it
 * holds a value of the wrong type.
 */
export const typeError =
  (message: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined || issue.input === null ? BLANK : message;

/**
 * An opaque identifier of one kind of resource. The brand keeps a collab id from being passed
 * where an organization id is expected; `schema.parse(raw)` turns a string into one. `noun` names
 * the resource in its description (`The organization's id`), which the OpenAPI document, the CLI's
 * help and the MCP tools give wherever an id is a field or a path parameter.
 */
export const idOf = <const Brand extends string>(_brand: Brand, noun: string) => {
  const id = z
    .string({ error: typeError('must be a string') })
    .min(1, { error: BLANK })
    .brand<Brand>();
  annotate(id, { description: `The ${noun}'s id` });
  return id;
};

/** A set of values, refused as `must be one of a, b, c` (the values, in the schema's order). */
export const oneOf = <const Values extends readonly [string, ...string[]]>(values: Values) =>
  z.enum(values, { error: typeError(`must be one of ${values.join(', ')}`) });

/** ISO 8601 UTC timestamp with `Z`, as every `*_at` field is on the wire. */
export const timestamp = z.iso.datetime({ offset: false });

/**
 * What `absoluteUrl` accepts, checked in full: zod's `z.url()` (it trims the value, requires
 * `http(s)://`, asks the platform's URL parser, then removes tabs and line breaks from the value).
 */
const parsedHttpUrl = z.url({ protocol: /^https?$/ });

/**
 * The start of a URL the platform's parser certainly reads: `http(s)://`, then a dotted-decimal
 * IPv4 or a lowercase DNS name whose last label starts with a letter (so not an IPv4 number; no
 * `--`, so no punycode), a port up to 65535 (a server on an ephemeral port writes five digits),
 * and the end of the authority. What follows cannot make
 * the parser fail (the WHATWG URL parser has no failure in the path, query and fragment states),
 * so it is not read: a third of the cost of a regex over the whole URL. What it refuses is not
 * refused: `parsedHttpUrl` decides.
 */
const PLAIN_HTTP_URL =
  /^https?:\/\/(?:(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)|(?:[a-z0-9]+(?:-[a-z0-9]+)*\.)*[a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?::(?:\d{1,4}|[1-5]\d{4}|6[0-4]\d{3}|65[0-4]\d\d|655[0-2]\d|6553[0-5]))?(?:[/?#]|$)/;

const TAB_OR_LINE_BREAK = /[\t\n\r]/g;
const HAS_TAB_OR_LINE_BREAK = /[\t\n\r]/;

/** Whether `z.url({ protocol: /^https?$/ })` accepts `value`; the common case is decided by {@link PLAIN_HTTP_URL} alone. */
const acceptsHttpUrl = (value: string) =>
  PLAIN_HTTP_URL.test(value) || parsedHttpUrl.safeParse(value).success;

/**
 * Tells the response check's fast path (fast-check.ts) that a URL the regex alone accepts, which
 * the rewrite leaves as it is, is accepted by `schema` unchanged.
 */
function withFastCheck<Schema extends z.ZodType>(schema: Schema): Schema {
  knownFastCheck(
    schema,
    (value) => PLAIN_HTTP_URL.test(value) && value.trim() === value && !HAS_TAB_OR_LINE_BREAK.test(value),
  );
  return schema;
}

/** z.url()'s output: the value trimmed, without tabs and line breaks. */
function urlOutput(value: string): string {
  return value.trim().replace(TAB_OR_LINE_BREAK, '');
}

/**
 * An absolute http(s) URL as the server writes it in `url`, `logo_url`, `banner_image_url`:
 * exactly what `z.url({ protocol: /^https?$/ })` accepts, with the same output, and the same JSON
 * Schema (`format: uri`).
 */
export const absoluteUrl = withFastCheck(z.stringFormat('url', acceptsHttpUrl).overwrite(urlOutput));

/**
 * A `website` as the client sent it (decisions.md §6), checked as {@link absoluteUrl}. Its host
 * may be non-ASCII (`https://exämple.com`), which a URI does not allow, so it is published with no
 * `format` (`iri` would say it, but validators such as ajv-formats do not know it, and warn).
 */
export const echoedUrl = annotate(
  withFastCheck(z.string().refine(acceptsHttpUrl, { error: 'Invalid URL' }).overwrite(urlOutput)),
  { description: 'http(s) URL as it was sent; its host may be non-ASCII (an IRI)' },
);

/** A required, non-blank string with a maximum length, with Rails-like messages. */
export const text = (max: number) =>
  z
    .string({ error: typeError('must be a string') })
    .trim()
    .min(1, { error: BLANK })
    .max(max, { error: `is too long (maximum is ${max} characters)` });

/** Characters a URL never carries raw: controls, space, `"`, `<`, `>`, `` ` `` (decisions.md §6). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const RAW_UNSAFE = /[\u0000-\u0020"<>`\u007f]/g;

/** `http://` or `https://` (any case), then the authority up to the first `/`, `?` or `#`. */
const HTTP_URL = /^(https?:\/\/)([^/?#]*)(.*)$/is;

/** A DNS name (letters of any script, digits, `-`, `_`, dot-separated), an IPv4 or a `[…]` IPv6 literal. */
const DNS_NAME =
  /^(?=.{1,253}\.?$)(?:[\p{L}\p{N}\p{M}_](?:[\p{L}\p{N}\p{M}_-]{0,61}[\p{L}\p{N}\p{M}_])?\.)*[\p{L}\p{N}\p{M}_](?:[\p{L}\p{N}\p{M}_-]{0,61}[\p{L}\p{N}\p{M}_])?\.?$/u;
const IPV6_LITERAL = /^\[[0-9A-Fa-f:.]+\]$/;
const PORT = /^\d{1,5}$/;

const encodeUnsafe = (part: string): string =>
  part.replace(RAW_UNSAFE, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);

/**
 * What the server stores of a user-supplied http(s) URL (decisions.md §6, "echoed as sent"): the
 * string as sent, except that characters a URL never carries raw are percent-encoded in the user
 * information, path, query and fragment. `not-http` when it is not an `http(s)://` URL, `invalid`
 * when its host is not a DNS name or an IP literal (a quote, a backtick, a space, an angle
 * bracket…) or a URL parser would not read it.
 */
export function echoedHttpUrl(value: string): string | 'not-http' | 'invalid' {
  const parts = HTTP_URL.exec(value);
  if (!parts) return 'not-http';
  const [, scheme = '', authority = '', rest = ''] = parts;
  const at = authority.lastIndexOf('@');
  const userinfo = at >= 0 ? authority.slice(0, at + 1) : '';
  const hostPort = authority.slice(at + 1);
  const portAt = hostPort.startsWith('[') ? hostPort.indexOf(']:') + 1 : hostPort.lastIndexOf(':');
  const host = portAt > 0 ? hostPort.slice(0, portAt) : hostPort;
  const port = portAt > 0 ? hostPort.slice(portAt + 1) : '';
  if (!(DNS_NAME.test(host) || IPV6_LITERAL.test(host))) return 'invalid';
  if (portAt > 0 && port !== '' && !PORT.test(port)) return 'invalid';
  const echoed = `${scheme}${encodeUnsafe(userinfo)}${hostPort}${encodeUnsafe(rest)}`;
  try {
    const parsed = new URL(echoed);
    if (parsed.hostname === '' || !/^https?:$/.test(parsed.protocol)) return 'invalid';
  } catch {
    return 'invalid';
  }
  return echoed;
}

const NOT_HTTP = 'must be an http or https URL';
const INVALID_URL = 'is not a valid URL';
const TOO_LONG = 'is too long (maximum is 2048 characters)';

/** An http(s) URL as sent (see {@link echoedHttpUrl}); `""` stays `""` for the callers to read. */
const echoedUrlInput = z
  .string({ error: typeError(NOT_HTTP) })
  .trim()
  .max(2048, { error: TOO_LONG })
  .transform((value, ctx) => {
    if (value === '') return value;
    const echoed = echoedHttpUrl(value);
    if (echoed === 'not-http' || echoed === 'invalid') {
      ctx.addIssue({ code: 'custom', message: echoed === 'not-http' ? NOT_HTTP : INVALID_URL });
      return z.NEVER;
    }
    return echoed;
  })
  // The stored form is the limit: each quote or angle bracket takes three characters there.
  .refine((value) => value.length <= 2048, { error: TOO_LONG });

/**
 * A user-supplied website: http(s) only, stored and returned as sent after trimming
 * (decisions.md §6; see {@link echoedHttpUrl}). `""` and `null` both mean "no website".
 */
export const websiteInput = annotate(
  echoedUrlInput.transform((value) => (value === '' ? null : value)).nullable(),
  { description: 'http(s) URL, returned as sent; "" or null clears it' },
);

/** The collab create's `website` query: an http(s) URL as sent (see {@link echoedHttpUrl}). */
export const websiteQuery = echoedUrlInput.refine((value) => value !== '', { error: NOT_HTTP });

/** A Markdown `brief` as written (collabs, campaigns); rendered to sanitized HTML on output. */
export const briefInput = annotate(
  z
    .string({ error: typeError('must be a string') })
    .max(MAX_BRIEF_LENGTH, { error: `is too long (maximum is ${MAX_BRIEF_LENGTH} characters)` }),
  { description: 'Markdown; rendered to sanitized HTML on output' },
);

/** Flag fields such as `purge_logo`: `"1"` asks for the removal. */
export const purgeFlag = annotate(z.enum(['0', '1'], { error: 'must be "1" or "0"' }), {
  description: '"1" removes the attached file',
});

export const booleanInput = z.boolean({ error: typeError('must be true or false') });

/** Monetary amount in minor units, `0 … 10^12`. */
export const amountInput = z
  .int({ error: typeError('must be an integer') })
  .min(0, { error: 'must be greater than or equal to 0' })
  .max(MAX_AMOUNT, { error: `must be less than or equal to ${MAX_AMOUNT}` });

/** The currencies the server accepts (decisions.md §2: the runtime's ISO 4217 list), lowercase. */
export const CURRENCY_CODES: ReadonlySet<string> = new Set(
  Intl.supportedValuesOf('currency').map((c) => c.toLowerCase()),
);

/**
 * Lowercase ISO 4217 code; uppercase input is normalised. The published schema lists the codes
 * (`enum`), so that generated clients type and check them; the server also takes them in capitals.
 */
export const currencyInput = z
  .string({ error: typeError('must be a string') })
  .trim()
  .toLowerCase()
  .refine((c) => CURRENCY_CODES.has(c), { error: 'is not a known ISO 4217 currency code' });
annotate(currencyInput, {
  id: 'CurrencyCode',
  examples: ['eur'],
  description: 'ISO 4217 currency code, lowercase (capitals are accepted and lowercased)',
  enum: [...CURRENCY_CODES].sort(),
  inlinePattern: '^[A-Za-z]{3}$',
});

/** Whether `code` (uppercase) is an assigned ISO 3166-1 alpha-2 code. */
export const isCountryCode = (code: string): boolean => COUNTRY_CODES.has(code);

/** Uppercase ISO 3166-1 alpha-2; lowercase input is normalised. Published as an `enum`. */
export const countryCodeInput = z
  .string({ error: typeError('must be a string') })
  .trim()
  .toUpperCase()
  .refine(isCountryCode, { error: 'is not a known ISO 3166-1 alpha-2 country code' });
annotate(countryCodeInput, {
  id: 'CountryCode',
  examples: ['DE'],
  description: 'ISO 3166-1 alpha-2 country code, uppercase (lowercase is accepted and uppercased)',
  enum: [...COUNTRY_CODES].sort(),
  inlinePattern: '^[A-Za-z]{2}$',
});

export const countriesInput = z
  .array(countryCodeInput, { error: typeError('must be an array of country codes') })
  .min(1, { error: "can't be empty" })
  .max(250, { error: 'has too many entries (maximum is 250)' })
  .transform((codes) => [...new Set(codes)]);

/** Wire form of a currency code (response side). */
export const currencyCode = z.string().regex(/^[a-z]{3}$/);
/** Wire form of a country code (response side). */
export const countryCode = z.string().regex(/^[A-Z]{2}$/);
