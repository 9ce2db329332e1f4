import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/routes.js';
import {
  createOrganization,
  deleteOrganization,
  listOrganizations,
  showOrganization,
  updateOrganization,
} from './organizations.service.js';

export const organizationRoutes = defineRoutes('organizations', endpoints.organizations, {
  list: ({ em, caller, page, config }) => listOrganizations(em, caller.user.id, page, config.baseUrl),
  retrieve: ({ em, params, config }) => showOrganization(em, params.id, config.baseUrl),
  create: ({ em, caller, body, files, config, uploads }) =>
    createOrganization(
      em,
      caller.user.id,
      body,
      files.logo,
      { baseUrl: config.baseUrl, uploads },
      config.limits,
    ),
  update: ({ em, params, body, files, config, uploads }) =>
    updateOrganization(em, params.id, body, files.logo, { baseUrl: config.baseUrl, uploads }),
  delete: ({ em, params, config, uploads }) =>
    deleteOrganization(em, params.id, { baseUrl: config.baseUrl, uploads }),
});
