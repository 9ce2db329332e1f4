import { endpoints } from '@app/schemas';
import { defineRoutes } from '../../http/route.js';
import { deleteAddress, findAddress, presentAddress, saveAddress } from './address.service.js';

export const addressRoutes = defineRoutes('address', endpoints.address, {
  retrieve: async ({ em, caller }) => presentAddress(await findAddress(em, caller.user.id)),
  update: async ({ em, caller, body }) => presentAddress(await saveAddress(em, caller.user.id, body)),
  delete: ({ em, caller }) => deleteAddress(em, caller.user.id),
});
