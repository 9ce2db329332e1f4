import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/route.js';
import { collabs } from './collabs.service.js';

/** The collab endpoints: the handlers and reads of `collabs` (collabs.service.ts). */
export const collabRoutes = defineRoutes('collabs', endpoints.collabs, collabs.handlers, collabs.reads);
