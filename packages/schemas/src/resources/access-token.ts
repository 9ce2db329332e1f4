import { z } from 'zod';
import { idOf, text, timestamp, typeError } from '../primitives.js';

export const AccessTokenId = idOf('AccessTokenId');
export type AccessTokenId = z.infer<typeof AccessTokenId>;

export const Permission = z.enum(['read', 'write'], { error: typeError('must be one of read, write') });
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
export type AccessToken = z.infer<typeof AccessToken>;

/** The creation response: the only time the plaintext `token` is shown. */
export const AccessTokenWithSecret = AccessToken.extend({
  // A pattern, not startsWith(): zod writes startsWith() into JSON Schema as `format: "starts_with"`,
  // a format no JSON Schema validator knows (MCP clients warn on every tool list).
  token: z.string().regex(new RegExp(`^${ACCESS_TOKEN_PREFIX}`)),
});
export type AccessTokenWithSecret = z.infer<typeof AccessTokenWithSecret>;

/** `access_token` payload of `POST /me/access_tokens.json`. */
export const AccessTokenCreate = z.object({
  description: text(200),
  permission: Permission,
});
export type AccessTokenCreate = z.input<typeof AccessTokenCreate>;
