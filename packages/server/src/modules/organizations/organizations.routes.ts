import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/route.js';
import { requestEnded } from '../common/request-ended.js';
import {
  createOrganization,
  deleteOrganization,
  listOrganizations,
  organizationRead,
  showOrganization,
  updateOrganization,
} from './organizations.service.js';

export const organizationRoutes = defineRoutes(
  'organizations',
  endpoints.organizations,
  {
    list: ({ em, caller, page, config }) => listOrganizations(em, caller.user.id, page, config.baseUrl),
    retrieve: ({ read, config }) => showOrganization(read, config.baseUrl),
    create: ({ em, config, uploads, caller, body, files }) =>
      createOrganization(em, config, uploads, caller.user.id, body, files),
    update: ({ em, config, uploads, params, body, files, caller, reply }) =>
      updateOrganization(em, config, uploads, params.id, body, files, {
        userId: caller.user.id,
        signal: requestEnded(reply),
      }),
    delete: ({ em, uploads, params }) => deleteOrganization(em, uploads, params.id),
  },
  { retrieve: organizationRead },
);
