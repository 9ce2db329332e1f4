import { endpoints } from '@app/schemas';
import { defineRoutes, notImplemented } from '../../http/routes.js';

export const campaignRoutes = defineRoutes('campaigns', endpoints.campaigns, {
  list: notImplemented,
  retrieve: notImplemented,
  create: notImplemented,
  update: notImplemented,
  delete: notImplemented,
  publish: notImplemented,
  pause: notImplemented,
  resume: notImplemented,
});
