import { endpoints } from '@app/schemas';
import { defineRoutes, notImplemented } from '../../http/routes.js';

export const collabRoutes = defineRoutes('collabs', endpoints.collabs, {
  list: notImplemented,
  retrieve: notImplemented,
  create: notImplemented,
  update: notImplemented,
  delete: notImplemented,
  submit: notImplemented,
  pause: notImplemented,
  unpause: notImplemented,
});
