import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/routes.js';
import { campaigns } from './campaigns.service.js';

export const campaignRoutes = defineRoutes(
  'campaigns',
  endpoints.campaigns,
  campaigns.handlers,
  campaigns.reads,
);
