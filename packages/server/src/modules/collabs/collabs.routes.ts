import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/routes.js';
import { pageWindow } from '../../plugins/pagination.js';
import {
  createCollab,
  deleteCollab,
  findCollab,
  listCollabs,
  presentCollab,
  transitionCollab,
  updateCollab,
} from './collabs.service.js';

export const collabRoutes = defineRoutes('collabs', endpoints.collabs, {
  list: ({ em, config, params, query }) =>
    listCollabs(em, params.organization_id, pageWindow(query.page ?? 1), config.baseUrl),
  retrieve: async ({ em, config, params }) =>
    presentCollab(await findCollab(em, params.organization_id, params.id), config.baseUrl),
  create: ({ em, config, params, query, body, files }) =>
    createCollab(em, config, params.organization_id, body, files, query.website),
  update: ({ em, config, params, body, files }) =>
    updateCollab(em, config, params.organization_id, params.id, body, files),
  delete: ({ em, config, params }) => deleteCollab(em, config, params.organization_id, params.id),
  submit: ({ em, params }) => transitionCollab(em, params.organization_id, params.id, 'submit'),
  pause: ({ em, params }) => transitionCollab(em, params.organization_id, params.id, 'pause'),
  unpause: ({ em, params }) => transitionCollab(em, params.organization_id, params.id, 'unpause'),
});
