import { endpoints } from '@app/schemas';
import { defineRoutes, notImplemented } from '../../http/routes.js';

export const organizationRoutes = defineRoutes('organizations', endpoints.organizations, {
  list: notImplemented,
  retrieve: notImplemented,
  create: notImplemented,
  update: notImplemented,
  delete: notImplemented,
});
