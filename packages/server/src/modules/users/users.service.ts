import type { Permission } from '@app/schemas';
import type { Em } from '../../db/database.js';
import { unprocessable } from '../../http/errors.js';
import { issueAccessToken } from '../access-tokens/access-tokens.service.js';
import { User } from './user.entity.js';

export const presentUser = (user: User) => ({ id: user.id, name: user.name, email: user.email });

/**
 * Creates a user and a first access token (the CLI, the demo set-up and the test helpers).
 * A taken e-mail address is a `422` on `email`.
 */
export async function createUserWithToken(
  em: Em,
  input: { name: string; email: string },
  token: { description?: string | undefined; permission: Permission },
) {
  const email = input.email.trim().toLowerCase();
  if ((await em.count(User, { email })) > 0) throw unprocessable({ email: ['has already been taken'] });
  const user = em.create(User, { name: input.name, email });
  await em.flush();
  const accessToken = await issueAccessToken(em, user.id, {
    description: token.description ?? 'Default token',
    permission: token.permission,
  });
  return { user: presentUser(user), access_token: accessToken };
}
