import { z } from 'zod';
import { COUNTRY_CODES } from './countries.js';

/** Page size of every collection endpoint (spec: "Page size is fixed at 20"). */
export const PAGE_SIZE = 20;

/** Largest amount in a monetary field, in the currency's minor unit (decisions.md §2). */
export const MAX_AMOUNT = 1_000_000_000_000;

/** Largest Markdown `brief` accepted on input (decisions.md §2). */
export const MAX_BRIEF_LENGTH = 20_000;

/**
 * An opaque identifier of one kind of resource. The brand keeps a collab id from being passed
 * where an organization id is expected; `schema.parse(raw)` turns a string into one.
 */
export const idOf = <const Brand extends string>(_brand: Brand) => z.string().min(1).brand<Brand>();

/** ISO 8601 UTC timestamp with `Z`, as every `*_at` field is on the wire. */
export const timestamp = z.iso.datetime({ offset: false });

/** An absolute http(s) URL as the server writes it in `url`, `logo_url`, `banner_image_url`. */
export const absoluteUrl = z.url({ protocol: /^https?$/ });

const BLANK = "can't be blank";

/**
 * The message of a type error: "can't be blank" when the field is missing, `message` when it
 * holds a value of the wrong type.
 */
export const typeError =
  (message: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined || issue.input === null ? BLANK : message;

/** A required, non-blank string with a maximum length, with Rails-like messages. */
export const text = (max: number) =>
  z
    .string({ error: typeError('must be a string') })
    .trim()
    .min(1, { error: BLANK })
    .max(max, { error: `is too long (maximum is ${max} characters)` });

const isHttpUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
};

/**
 * A user-supplied website: http(s) only, stored and returned in its normalised form
 * (`new URL(v).href`: scheme and host in lowercase, characters such as quotes and angle brackets
 * percent-encoded). `""` and `null` both mean "no website".
 */
export const websiteInput = z
  .string({ error: typeError('must be an http or https URL') })
  .trim()
  .max(2048, { error: 'is too long (maximum is 2048 characters)' })
  .refine((value) => value === '' || isHttpUrl(value), { error: 'must be an http or https URL' })
  .transform((value) => (value === '' ? null : new URL(value).href))
  // The stored form is the limit: each quote or angle bracket takes three characters there.
  .refine((value) => value === null || value.length <= 2048, {
    error: 'is too long (maximum is 2048 characters)',
  })
  .nullable()
  .meta({ description: 'http(s) URL; "" or null clears it' });

/** A Markdown `brief` as written (collabs, campaigns); rendered to sanitized HTML on output. */
export const briefInput = z
  .string({ error: typeError('must be a string') })
  .max(MAX_BRIEF_LENGTH, { error: `is too long (maximum is ${MAX_BRIEF_LENGTH} characters)` });

/** Flag fields such as `purge_logo`: `"1"` asks for the removal. */
export const purgeFlag = z
  .enum(['0', '1'], { error: 'must be "1" or "0"' })
  .meta({ description: '"1" removes the attached file' });

export const booleanInput = z.boolean({ error: typeError('must be true or false') });

/** Monetary amount in minor units, `0 … 10^12`. */
export const amountInput = z
  .int({ error: typeError('must be an integer') })
  .min(0, { error: 'must be greater than or equal to 0' })
  .max(MAX_AMOUNT, { error: `must be less than or equal to ${MAX_AMOUNT}` });

const CURRENCIES: ReadonlySet<string> = new Set(
  Intl.supportedValuesOf('currency').map((c) => c.toLowerCase()),
);

/** Lowercase ISO 4217 code; uppercase input is normalised. */
export const currencyInput = z
  .string({ error: typeError('must be a string') })
  .trim()
  .toLowerCase()
  .refine((c) => CURRENCIES.has(c), { error: 'is not a known ISO 4217 currency code' });

/** Whether `code` (uppercase) is an assigned ISO 3166-1 alpha-2 code. */
export const isCountryCode = (code: string): boolean => COUNTRY_CODES.has(code);

/** Uppercase ISO 3166-1 alpha-2; lowercase input is normalised. */
export const countryCodeInput = z
  .string({ error: typeError('must be a string') })
  .trim()
  .toUpperCase()
  .refine(isCountryCode, { error: 'is not a known ISO 3166-1 alpha-2 country code' });

export const countriesInput = z
  .array(countryCodeInput, { error: typeError('must be an array of country codes') })
  .min(1, { error: "can't be empty" })
  .max(250, { error: 'has too many entries (maximum is 250)' })
  .transform((codes) => [...new Set(codes)]);

/** Wire form of a currency code (response side). */
export const currencyCode = z.string().regex(/^[a-z]{3}$/);
/** Wire form of a country code (response side). */
export const countryCode = z.string().regex(/^[A-Z]{2}$/);
