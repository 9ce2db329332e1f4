import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { idColumn, timestampColumns } from '../../db/columns.js';
import { User } from '../users/user.entity.js';

/** The user's shipping address; the unique user column keeps it to one per user. */
export const Address = defineEntity({
  name: 'Address',
  tableName: 'addresses',
  properties: {
    id: idColumn(),
    user: () => p.manyToOne(User).deleteRule('cascade').unique(),
    addressOne: p.string().length(200),
    addressTwo: p.string().length(200).nullable(),
    city: p.string().length(200),
    state: p.string().length(200),
    postalCode: p.string().length(200),
    countryCode: p.string().length(2),
    ...timestampColumns(),
  },
});
export type Address = InferEntity<typeof Address>;
