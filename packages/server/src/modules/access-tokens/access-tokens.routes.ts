import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/route.js';
import { issueAccessToken, listAccessTokens, revokeAccessToken } from './access-tokens.service.js';

export const accessTokenRoutes = defineRoutes('accessTokens', endpoints.accessTokens, {
  list: ({ em, caller, page }) => listAccessTokens(em, caller.user.id, page),
  create: ({ em, config, caller, body }) => issueAccessToken(em, caller.user.id, body, config.limits),
  delete: ({ em, caller, params }) => revokeAccessToken(em, caller.user.id, params.id),
});
