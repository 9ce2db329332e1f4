import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/routes.js';
import {
  createOrganization,
  deleteOrganization,
  listOrganizations,
  showOrganization,
  storageOf,
  updateOrganization,
} from './organizations.service.js';

export const organizationRoutes = defineRoutes('organizations', endpoints.organizations, {
  list: ({ em, caller, page, config }) => listOrganizations(em, caller.user.id, page, config.baseUrl),
  retrieve: ({ em, params, config }) => showOrganization(em, params.id, config.baseUrl),
  create: ({ em, caller, body, files, config }) =>
    createOrganization(em, caller.user.id, body, files.logo, storageOf(config), config.limits),
  update: ({ em, params, body, files, config }) =>
    updateOrganization(em, params.id, body, files.logo, storageOf(config)),
  delete: ({ em, params, config }) => deleteOrganization(em, params.id, storageOf(config)),
});
