import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/routes.js';
import { pageWindow } from '../../plugins/pagination.js';
import { issueAccessToken, listAccessTokens, revokeAccessToken } from './access-tokens.service.js';

export const accessTokenRoutes = defineRoutes('accessTokens', endpoints.accessTokens, {
  list: ({ em, caller, query }) => listAccessTokens(em, caller.user.id, pageWindow(query.page ?? 1)),
  create: ({ em, config, caller, body }) => issueAccessToken(em, caller.user.id, body, config.limits),
  delete: ({ em, caller, params }) => revokeAccessToken(em, caller.user.id, params.id),
});
