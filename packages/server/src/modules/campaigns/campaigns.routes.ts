import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/route.js';
import { campaigns } from './campaigns.service.js';

/** The campaign endpoints: the handlers and reads of `campaigns` (campaigns.service.ts). */
export const campaignRoutes = defineRoutes(
  'campaigns',
  endpoints.campaigns,
  campaigns.handlers,
  campaigns.reads,
);
