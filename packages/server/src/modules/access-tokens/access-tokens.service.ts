import type { AccessTokenCreate } from '@app/schemas';
import type { Limits } from '../../config.js';
import type { Em } from '../../db/database.js';
import { notFound } from '../../http/errors.js';
import { iso, isoOrNull } from '../../http/present.js';
import { flushWithinLimit } from '../common/limits.js';
import { AccessToken } from './access-token.entity.js';
import { digestOf, generateToken } from './token.js';

export function presentAccessToken(token: AccessToken) {
  return {
    id: token.id,
    description: token.description,
    permission: token.permission,
    created_at: iso(token.createdAt),
    last_used_at: isoOrNull(token.lastUsedAt),
  };
}

/**
 * Creates a token for a user; the plaintext is returned once and never stored. With `limits`,
 * a user who has reached the limit of tokens is refused (`POST /me/access_tokens.json`).
 */
export async function issueAccessToken(
  em: Em,
  userId: string,
  input: { description: string; permission: AccessTokenCreate['permission'] },
  limits?: Limits,
) {
  const token = generateToken();
  const entity = em.create(AccessToken, {
    user: userId,
    description: input.description,
    permission: input.permission,
    digest: digestOf(token),
  });
  if (limits) await flushWithinLimit(em, 'accessTokens', userId, limits);
  else await em.flush();
  return { ...presentAccessToken(entity), token };
}

export async function listAccessTokens(em: Em, userId: string, window: { limit: number; offset: number }) {
  const [tokens, total] = await em.findAndCount(
    AccessToken,
    { user: userId },
    { orderBy: { createdAt: 'desc', id: 'desc' }, ...window },
  );
  return { items: tokens.map(presentAccessToken), total };
}

/** Revokes one of the user's tokens (the calling token included). Another user's token is 404. */
export async function revokeAccessToken(em: Em, userId: string, id: string): Promise<void> {
  const deleted = await em.nativeDelete(AccessToken, { id, user: userId });
  if (deleted === 0) throw notFound();
}
