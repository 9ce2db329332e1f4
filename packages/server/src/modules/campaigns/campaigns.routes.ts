import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/routes.js';
import {
  campaignReads,
  createCampaign,
  deleteCampaign,
  transitionCampaign,
  updateCampaign,
} from './campaigns.service.js';

export const campaignRoutes = defineRoutes(
  'campaigns',
  endpoints.campaigns,
  {
    list: ({ em, read, config, params, page }) =>
      campaignReads.list(em, read, params.organization_id, page, config.baseUrl),
    retrieve: ({ read, config }) => campaignReads.show(read, config.baseUrl),
    create: ({ em, config, uploads, params, body, files }) =>
      createCampaign(em, config, uploads, params.organization_id, body, files),
    update: ({ em, config, uploads, params, body, files }) =>
      updateCampaign(em, config, uploads, params.organization_id, params.id, body, files),
    delete: ({ em, uploads, params }) => deleteCampaign(em, uploads, params.organization_id, params.id),
    publish: ({ em, params }) => transitionCampaign(em, params.organization_id, params.id, 'publish'),
    pause: ({ em, params }) => transitionCampaign(em, params.organization_id, params.id, 'pause'),
    resume: ({ em, params }) => transitionCampaign(em, params.organization_id, params.id, 'resume'),
  },
  { list: campaignReads.listRead, retrieve: campaignReads.showRead },
);
