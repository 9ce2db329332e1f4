import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/route.js';
import {
  createSocialAccount,
  deleteSocialAccount,
  findOwnSocialAccount,
  listSocialAccounts,
  presentSocialAccount,
} from './social-accounts.service.js';

export const socialAccountRoutes = defineRoutes('socialAccounts', endpoints.socialAccounts, {
  list: async ({ em, caller, page, config }) => {
    const [accounts, total] = await listSocialAccounts(em, caller.user.id, page);
    return { items: accounts.map((a) => presentSocialAccount(config.baseUrl, a)), total };
  },
  retrieve: async ({ em, caller, params, config }) =>
    presentSocialAccount(config.baseUrl, await findOwnSocialAccount(em, caller.user.id, params.id)),
  create: async ({ em, caller, body, config }) =>
    presentSocialAccount(config.baseUrl, await createSocialAccount(em, caller.user.id, body, config.limits)),
  delete: ({ em, caller, params }) => deleteSocialAccount(em, caller.user.id, params.id),
});
