import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { newId } from '../../db/ids.js';
import { User } from '../users/user.entity.js';

/** The user's shipping address; the unique user column keeps it to one per user. */
export const Address = defineEntity({
  name: 'Address',
  tableName: 'addresses',
  properties: {
    id: p
      .string()
      .length(16)
      .primary()
      .onCreate(() => newId()),
    user: () => p.manyToOne(User).deleteRule('cascade').unique(),
    addressOne: p.string().length(200),
    addressTwo: p.string().length(200).nullable(),
    city: p.string().length(200),
    state: p.string().length(200),
    postalCode: p.string().length(200),
    countryCode: p.string().length(2),
    createdAt: p.datetime(3).onCreate(() => new Date()),
    updatedAt: p
      .datetime(3)
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Address = InferEntity<typeof Address>;
