import * as z from 'zod';
import { component } from '../components.js';
import type { Described } from '../described.js';
import * as ex from '../examples.js';
import type { ResourceFieldDocs } from '../field-docs.js';
import { idOf, oneOf, text, timestamp } from '../primitives.js';

export const AccessTokenId = idOf('AccessTokenId', 'access token');
export type AccessTokenId = z.infer<typeof AccessTokenId>;

export const Permission = component(oneOf(['read', 'write']), {
  id: 'Permission',
  description: 'What an access token may do: read, or read and write',
  examples: ['read'],
});
export type Permission = z.infer<typeof Permission>;

/** Prefix of every access token, so secret scanners can spot one. */
export const ACCESS_TOKEN_PREFIX = 'mkt_';

/** Token metadata, as listed: never the token value. */
export const AccessToken = z.object({
  id: AccessTokenId,
  description: z.string(),
  permission: Permission,
  created_at: timestamp,
  /** Null until the token is first used; then updated at most once a minute. */
  last_used_at: timestamp.nullable(),
});
export type AccessToken = Described<z.infer<typeof AccessToken>, ResourceFieldDocs['AccessToken']>;
component(AccessToken, {
  id: 'AccessToken',
  description: 'Metadata of an access token (never its value).',
  examples: [ex.accessToken],
});

/** The creation response: the only time the plaintext `token` is shown. */
export const AccessTokenWithSecret = AccessToken.extend({
  // A pattern, not startsWith(): zod writes startsWith() into JSON Schema as `format: "starts_with"`,
  // a format no JSON Schema validator knows (MCP clients warn on every tool list).
  token: z.string().regex(new RegExp(`^${ACCESS_TOKEN_PREFIX}`)),
});
export type AccessTokenWithSecret = Described<
  z.infer<typeof AccessTokenWithSecret>,
  ResourceFieldDocs['AccessTokenWithSecret']
>;
component(AccessTokenWithSecret, {
  id: 'AccessTokenWithSecret',
  description: 'A new access token with its value, shown this once.',
  examples: [{ ...ex.accessToken, token: `mkt_${'A'.repeat(43)}000000` }],
});

/** `access_token` payload of `POST /me/access_tokens.json`. */
export const AccessTokenCreate = z.object({
  description: text(200),
  permission: Permission,
});
export type AccessTokenCreate = z.input<typeof AccessTokenCreate>;
component(AccessTokenCreate, {
  id: 'AccessTokenCreate',
  description: 'A new access token: what it is for and what it may do.',
  examples: [{ description: 'CI agent', permission: 'write' }],
});
