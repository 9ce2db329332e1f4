import { endpoints } from '@app/schemas';
import { defineRoutes, notImplemented } from '../../http/routes.js';

export const memberRoutes = defineRoutes('members', endpoints.members, {
  list: notImplemented,
  update: notImplemented,
  delete: notImplemented,
});
