import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/routes.js';
import {
  collabReads,
  createCollab,
  deleteCollab,
  transitionCollab,
  updateCollab,
} from './collabs.service.js';

export const collabRoutes = defineRoutes(
  'collabs',
  endpoints.collabs,
  {
    list: ({ em, read, config, params, page }) =>
      collabReads.list(em, read, params.organization_id, page, config.baseUrl),
    retrieve: ({ read, config }) => collabReads.show(read, config.baseUrl),
    create: ({ em, config, uploads, params, query, body, files }) =>
      createCollab(em, config, uploads, params.organization_id, body, files, query.website),
    update: ({ em, config, uploads, params, body, files }) =>
      updateCollab(em, config, uploads, params.organization_id, params.id, body, files),
    delete: ({ em, uploads, params }) => deleteCollab(em, uploads, params.organization_id, params.id),
    submit: ({ em, params }) => transitionCollab(em, params.organization_id, params.id, 'submit'),
    pause: ({ em, params }) => transitionCollab(em, params.organization_id, params.id, 'pause'),
    unpause: ({ em, params }) => transitionCollab(em, params.organization_id, params.id, 'unpause'),
  },
  { list: collabReads.listRead, retrieve: collabReads.showRead },
);
