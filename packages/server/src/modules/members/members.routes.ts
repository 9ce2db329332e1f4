import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/routes.js';
import { pageWindow } from '../../plugins/pagination.js';
import { changeRole, listMembers, removeMember } from './members.service.js';

export const memberRoutes = defineRoutes('members', endpoints.members, {
  list: ({ em, params, query }) => listMembers(em, params.organization_id, pageWindow(query.page ?? 1)),
  update: ({ em, params, caller, body }) =>
    changeRole(em, params.organization_id, params.id, caller.user.id, body.role),
  delete: ({ em, params, caller }) => removeMember(em, params.organization_id, params.id, caller.user.id),
});
