import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/routes.js';
import { collabs } from './collabs.service.js';

export const collabRoutes = defineRoutes('collabs', endpoints.collabs, collabs.handlers, collabs.reads);
