import { endpoints } from '@app/schemas';
import { defineRoutes, notImplemented } from '../../http/routes.js';

export const addressRoutes = defineRoutes('address', endpoints.address, {
  retrieve: notImplemented,
  update: notImplemented,
  delete: notImplemented,
});
