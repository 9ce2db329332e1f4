import * as z from 'zod';
import { component } from '../components.js';
import type { Described } from '../described.js';
import * as ex from '../examples.js';
import type { ResourceFieldDocs } from '../field-docs.js';
import { countryCodeInput, idOf, text, timestamp } from '../primitives.js';

export const AddressId = idOf('AddressId', 'address');
export type AddressId = z.infer<typeof AddressId>;

export const Address = z.object({
  id: AddressId,
  address_one: z.string(),
  address_two: z.string().nullable(),
  city: z.string(),
  state: z.string(),
  postal_code: z.string(),
  country_code: z.string().regex(/^[A-Z]{2}$/),
  created_at: timestamp,
  updated_at: timestamp,
});
export type Address = Described<z.infer<typeof Address>, ResourceFieldDocs['Address']>;
component(Address, { id: 'Address', description: "The caller's shipping address.", examples: [ex.address] });

const addressTwo = z.union([z.null(), z.literal('').transform(() => null), text(200)]);

/**
 * `address` payload of `PATCH /me/address.json`. Fields may be left out when an address exists
 * (the change is merged into it); the merged address must satisfy {@link AddressComplete}.
 */
export const AddressUpdate = z.object({
  address_one: text(200).optional(),
  address_two: addressTwo.optional(),
  city: text(200).optional(),
  state: text(200).optional(),
  postal_code: text(200).optional(),
  country_code: countryCodeInput.optional(),
});
export type AddressUpdate = z.input<typeof AddressUpdate>;
component(AddressUpdate, {
  id: 'AddressUpdate',
  description: 'Address fields to set; merged into the stored address.',
  examples: [
    {
      address_one: '1 Infinite Loop',
      city: 'Cupertino',
      state: 'CA',
      postal_code: '95014',
      country_code: 'US',
    },
  ],
});

/** The fields every stored address has: what a create, or a merged update, must satisfy. */
export const AddressComplete = z.object({
  address_one: text(200),
  address_two: addressTwo.default(null),
  city: text(200),
  state: text(200),
  postal_code: text(200),
  country_code: countryCodeInput,
});
export type AddressComplete = z.output<typeof AddressComplete>;
