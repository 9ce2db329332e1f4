import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/routes.js';
import {
  collabRead,
  collabsRead,
  createCollab,
  deleteCollab,
  listCollabs,
  showCollab,
  transitionCollab,
  updateCollab,
} from './collabs.service.js';

export const collabRoutes = defineRoutes(
  'collabs',
  endpoints.collabs,
  {
    list: ({ em, read, config, params, page }) =>
      listCollabs(em, read, params.organization_id, page, config.baseUrl),
    retrieve: ({ read, config }) => showCollab(read, config.baseUrl),
    create: ({ em, config, uploads, params, query, body, files }) =>
      createCollab(em, config, uploads, params.organization_id, body, files, query.website),
    update: ({ em, config, uploads, params, body, files }) =>
      updateCollab(em, config, uploads, params.organization_id, params.id, body, files),
    delete: ({ em, uploads, params }) => deleteCollab(em, uploads, params.organization_id, params.id),
    submit: ({ em, params }) => transitionCollab(em, params.organization_id, params.id, 'submit'),
    pause: ({ em, params }) => transitionCollab(em, params.organization_id, params.id, 'pause'),
    unpause: ({ em, params }) => transitionCollab(em, params.organization_id, params.id, 'unpause'),
  },
  { list: collabsRead, retrieve: collabRead },
);
