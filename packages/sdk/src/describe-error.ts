/**
 * What went wrong in a call of an operation, as the CLI and the MCP server both report it: the
 * status, the API's `errors` or `error`, and a one-line hint a person or a model can act on.
 */
import { IDEMPOTENCY_KEY_REUSED_MESSAGE, toFieldErrors } from '@app/schemas';
import * as z from 'zod';
import {
  APIConnectionError,
  APIError,
  type APIErrorRequest,
  MarketplaceError,
  RequestValidationError,
} from './core/error.js';

export interface ErrorDescription {
  /** The HTTP status, or null when no answer came (arguments refused first, no connection). */
  status: number | null;
  /** Field → messages, as a `422` carries them (also for arguments refused before sending). */
  errors?: Record<string, string[]>;
  /** The API's `error` text, or what failed when there was no answer. */
  error?: string;
  hint?: string;
}

/** What a hint may say about the call that failed: an operation's kind and the ids it takes. */
export interface FailedCall {
  /** The operation's kind: `delete`, `list`, `transition`, … (an `Operation`'s `kind`). */
  kind: string;
  /** The ids the operation takes, in path order (none: `me address delete`). */
  pathParams: readonly string[];
  /**
   * The operation's flat input (an `Operation`'s `input`): without a `settable` set, its fields
   * are the arguments the caller can set. Without it, a transition, read or delete takes its ids
   * only.
   */
  input?: { readonly shape: Readonly<Record<string, unknown>> };
}

/** Kinds of operation that take their path parameters and nothing else. */
const IDS_ONLY: ReadonlySet<string> = new Set(['transition', 'read', 'delete']);

/**
 * The arguments a caller can set, when not told: the operation's input, else its ids when its
 * kind takes nothing else; `undefined` (every field is an argument) when the call is not known.
 */
function settableOf(call: FailedCall | undefined): ReadonlySet<string> | undefined {
  if (call?.input) return new Set(Object.keys(call.input.shape));
  if (call && IDS_ONLY.has(call.kind)) return new Set(call.pathParams);
  return undefined;
}

/** How `describeError` says it. */
export interface DescribeOptions {
  /**
   * The hint of a `422` or of arguments refused names the fields only, not their messages again:
   * for a reader that gets `errors` beside it (a model reading an MCP tool result, where every
   * repeated word costs). Default false: the hint says the messages too (the CLI's hint line).
   */
  fieldNamesOnly?: boolean;
  /** Where the caller's token and base URL came from, which the hints then name. */
  from?: SettingSources;
}

/**
 * Where the caller's token and base URL came from, for the hints that say what to change: a flag
 * (`--base-url`), a variable (`MARKETPLACE_TOKEN`), a stored login. Without it a hint names the
 * SDK's variables (`MARKETPLACE_TOKEN`, `MARKETPLACE_BASE_URL`).
 */
export interface SettingSources {
  /** Where the token sent came from, in words: `--token`, `` `marketplace auth login` (…/config.json) ``. */
  token?: string;
  /** Where the base URL came from, in words: `--base-url`, `MARKETPLACE_BASE_URL`. */
  baseUrl?: string;
}

/**
 * A field's message that no value of that field can answer: a guard (decisions §2, "Membership
 * guards": `role` "cannot be changed for the organization owner"; a published campaign's fields).
 */
const GUARD = /^cannot be changed\b/;

/**
 * Fields a situation may name that no call of the API sets, and what sets them: the caller waits
 * on it rather than look for an argument (decisions: a campaign's budget is read-only; the spec:
 * "funding happens separately").
 */
const SET_OUTSIDE_THE_API: Readonly<Record<string, string>> = {
  total_budget_amount:
    'The budget is funded outside the API: no call or argument of it sets total_budget_amount, so publish once the campaign is funded.',
};

/**
 * The hint of a status. `settable`: the arguments of the operation that failed; a `422` on
 * anything else (`base`, or a guard on a field no argument sets, such as a collab's `state`), or
 * a guard on an argument (no value of it helps), is a situation to change first, not an argument
 * to fix. `call`: the operation, for a `404` (a repeated delete; a call that takes no id).
 */
function hintOf(
  status: number | null,
  errors: Record<string, string[]> | undefined,
  settable: ReadonlySet<string> | undefined,
  call: FailedCall | undefined,
  request: APIErrorRequest | undefined,
  { fieldNamesOnly = false, from = {} }: DescribeOptions = {},
): string {
  const base = request && baseUrlOf(request);
  // `(from --base-url, here http://…/api)`; not told: the SDK's variable.
  const baseUrlSaid = `${from.baseUrl ? `from ${from.baseUrl}` : 'MARKETPLACE_BASE_URL'}${base ? `, here ${base}` : ''}`;
  // A base URL with a path: a 404 may be its route, not the id (an unknown route answers the same
  // `{"error": "Not found"}`, decisions.md), so the hint says to check it first.
  const path = base ? pathOf(base) : '';
  const checkBaseFirst = path
    ? `Check the base URL (${baseUrlSaid}): an unknown route answers the same 404 as an unknown id, and its path ${path} may be one the API does not have. If the base URL is right, `
    : '';
  const unlessBase = (hint: string) =>
    checkBaseFirst ? `${checkBaseFirst}${hint[0]?.toLowerCase()}${hint.slice(1)}` : hint;
  switch (status) {
    case 401:
      return from.token
        ? `The token is missing, revoked or read-only: use a valid token in place of the one from ${from.token} (a write token for changes).`
        : 'The token is missing, revoked or read-only: use a valid token (MARKETPLACE_TOKEN; a write token for changes).';
    case 403:
      return "Not allowed: this user's role (an admin or the owner may be needed) or the state of the resource (e.g. a collab that is no longer a draft cannot be deleted) does not permit it.";
    case 404:
      if (call?.kind === 'delete' && call.pathParams.length === 0)
        return 'Nothing to delete: there is none for this user (never made, or deleted already); or the base URL does not point at the API.';
      if (call?.kind === 'delete')
        return unlessBase(
          'Nothing to delete: it is gone already (a delete repeated after it took effect answers 404), or the id is unknown or not visible to this user.',
        );
      // A call without an id answers 404 only at a wrong route (`GET /me/address.json` without an
      // address answers an empty 404, which the SDK reads as `null`).
      if (call && call.pathParams.length === 0)
        return `No such route: check the base URL (${baseUrlSaid}): it should be the API's origin, not a path under it.`;
      return unlessBase(
        'The id is unknown or not visible to this user: list the collection to find a valid id.',
      );
    case 422:
    case null: {
      // The key, not the situation, is what to change (`idempotency_key`, `--idempotency-key`).
      if (errors?.base?.includes(IDEMPOTENCY_KEY_REUSED_MESSAGE) && Object.keys(errors).length === 1)
        return 'This idempotency key was used with another request: send this request with a new key (or none), or the first request again with this key.';
      const isArgument = (field: string) =>
        field !== 'base' && (settable === undefined || settable.has(field));
      const fields: [string, string[]][] = [];
      const situation: [string, string[]][] = [];
      for (const [field, messages] of Object.entries(errors ?? {})) {
        const guards = isArgument(field) ? messages.filter((m) => GUARD.test(m)) : messages;
        const fixable = messages.filter((m) => !guards.includes(m));
        if (fixable.length > 0) fields.push([field, fixable]);
        if (guards.length > 0) situation.push([field, guards]);
      }
      const list = (items: [string, string[]][]) =>
        fieldNamesOnly
          ? items.map(([field]) => field).join(', ')
          : items
              .map(([field, messages]) => (field === 'base' ? '' : `${field} `) + messages.join(', '))
              .join('; ');
      // A message may end a sentence itself (`did you mean name?`).
      const sentence = (text: string) => (/[.?!]$/.test(text) ? text : `${text}.`);
      const parts = [
        fields.length > 0 && sentence(`Fix these fields and call again: ${list(fields)}`),
        situation.length > 0 &&
          (fieldNamesOnly
            ? `Not possible as things are (errors: ${list(situation)}): no value of this call's arguments changes that.`
            : sentence(`Not possible as things are: ${list(situation)}`)),
        ...situation.map(([field]) => SET_OUTSIDE_THE_API[field]),
      ].filter(Boolean);
      return parts.length > 0 ? parts.join(' ') : 'The request was refused as invalid; check the arguments.';
    }
    case 409:
      // The only `409` of the API (decisions.md §6): the SDK retried it after `Retry-After`, and
      // the first request with the key was still running. Calling again with the same key is safe;
      // a new key (as "check the arguments" would lead to) would run it a second time.
      return 'A request with this idempotency key is still running: call again in a moment with the same key, which runs it at most once (a new key would run it again).';
    case 503:
      return 'The service is temporarily unavailable: try again in a moment.';
    default:
      return status >= 500
        ? 'The server failed: try again later.'
        : 'The request was refused; check the arguments.';
  }
}

/** The call an `APIError` answers, as far as its request tells: its kind by its method, and its ids. */
function callOf({ method, route }: APIErrorRequest): FailedCall {
  const kinds: Record<string, string> = { GET: 'read', POST: 'create', DELETE: 'delete' };
  return {
    kind: kinds[method] ?? 'update',
    pathParams: [...route.matchAll(/:([a-z_]+)/g)].map((m) => m[1] as string),
  };
}

/** The base URL a request was sent under: its URL without the query and the route's path. */
function baseUrlOf({ url, route }: APIErrorRequest): string | undefined {
  const path = route.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[a-z_]+/g, '[^/]+');
  return new RegExp(`^(.*?)${path}$`).exec(url.replace(/[?#].*$/s, ''))?.[1];
}

/** The path of a base URL (`/api`), '' when it is the origin. */
function pathOf(base: string): string {
  try {
    return new URL(base).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/**
 * Describes a failed call: an `APIError` (its status and body), arguments refused before sending
 * (a `RequestValidationError`, or the `ZodError` of an operation's input), no connection, or any
 * other error (its message, no hint). `settable`: the arguments the caller can change (default: the
 * `input` of `call`, or its ids for a transition, read or delete); `call`: the operation that
 * failed (else what the error's `request` tells of it); `options`: how it is
 * said, and where the token and the base URL came from, which the hints then name.
 */
export function describeError(
  error: unknown,
  settable?: ReadonlySet<string>,
  call?: FailedCall,
  options: DescribeOptions = {},
): ErrorDescription {
  const canSet = settable ?? settableOf(call);
  if (error instanceof APIError) {
    const body = error.body as { errors?: Record<string, string[]>; error?: unknown } | undefined;
    const errors = typeof body === 'object' && body !== null ? body.errors : undefined;
    const text = typeof body === 'object' && body !== null ? body.error : undefined;
    return {
      status: error.status,
      ...(errors && { errors }),
      ...(typeof text === 'string' && { error: text }),
      hint: hintOf(
        error.status,
        errors,
        canSet,
        call ?? (error.request && callOf(error.request)),
        error.request,
        options,
      ),
    };
  }
  if (error instanceof RequestValidationError || error instanceof z.ZodError) {
    const errors = error instanceof z.ZodError ? toFieldErrors(error.issues) : error.errors;
    // Refused before sending: every field named is an argument given (one the operation does not
    // take among them) or left out, to fix, not a situation.
    const named = canSet && new Set([...canSet, ...Object.keys(errors)]);
    return { status: null, errors, hint: hintOf(null, errors, named, call, undefined, options) };
  }
  if (error instanceof APIConnectionError)
    return {
      status: null,
      error: error.message,
      hint: options.from?.baseUrl
        ? `Check the base URL (from ${options.from?.baseUrl}): the API did not answer.`
        : 'Check MARKETPLACE_BASE_URL: the API did not answer.',
    };
  if (error instanceof MarketplaceError) return { status: null, error: error.message };
  return { status: null, error: error instanceof Error ? error.message : String(error) };
}
