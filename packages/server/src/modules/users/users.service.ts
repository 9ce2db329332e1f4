import type { Permission } from '@app/schemas';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
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
  const user = em.create(User, { name: input.name, email });
  try {
    await em.flush();
  } catch (error) {
    // The unique index decides, so two concurrent sign-ups with one address cannot both succeed.
    if (error instanceof UniqueConstraintViolationException)
      throw unprocessable({ email: ['has already been taken'] });
    throw error;
  }
  const accessToken = await issueAccessToken(em, user.id, {
    description: token.description ?? 'Default token',
    permission: token.permission,
  });
  return { user: presentUser(user), access_token: accessToken };
}

/** Whether a user with this id exists (test helpers that act on a user answer 404 otherwise). */
export async function userExists(em: Em, id: string): Promise<boolean> {
  return (await em.count(User, { id })) > 0;
}

export async function pushNotificationsEnabled(em: Em, userId: string): Promise<boolean> {
  const user = await em.findOneOrFail(User, { id: userId }, { fields: ['pushNotificationsEnabled'] });
  return user.pushNotificationsEnabled;
}

export async function setPushNotificationsEnabled(em: Em, userId: string, enabled: boolean): Promise<void> {
  await em.nativeUpdate(User, { id: userId }, { pushNotificationsEnabled: enabled, updatedAt: new Date() });
}
