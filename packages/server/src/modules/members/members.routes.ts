import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/route.js';
import { changeRole, listMembers, removeMember } from './members.service.js';

export const memberRoutes = defineRoutes('members', endpoints.members, {
  list: ({ em, params, page }) => listMembers(em, params.organization_id, page),
  update: ({ em, params, caller, body }) =>
    changeRole(em, params.organization_id, params.id, caller.user.id, body.role),
  delete: ({ em, params, caller }) => removeMember(em, params.organization_id, params.id, caller.user.id),
});
