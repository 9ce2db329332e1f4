import { endpoints } from '@app/schemas';
import { defineRoutes, notImplemented } from '../../http/routes.js';

export const socialAccountRoutes = defineRoutes('socialAccounts', endpoints.socialAccounts, {
  list: notImplemented,
  retrieve: notImplemented,
  create: notImplemented,
  delete: notImplemented,
});
