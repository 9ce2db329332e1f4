import { AddressComplete, type AddressUpdate, toFieldErrors } from '@app/schemas';
import type * as z from 'zod';
import type { Em } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { notFound, unprocessable } from '../../http/errors.js';
import { iso } from '../../http/present.js';
import { Address } from './address.entity.js';

type Fields = z.output<typeof AddressComplete>;
type Patch = z.output<typeof AddressUpdate>;

/** The address fields, as the contract names them (the columns have the same names). */
const FIELDS = Object.keys(AddressComplete.shape) as Array<keyof Fields>;

export function presentAddress(address: Address) {
  return {
    id: address.id,
    ...fieldsOf(address),
    created_at: iso(address.createdAt),
    updated_at: iso(address.updatedAt),
  };
}

/** Each field's entity property: checked against both types, so neither side can drift. */
const PROPERTIES = {
  address_one: 'addressOne',
  address_two: 'addressTwo',
  city: 'city',
  state: 'state',
  postal_code: 'postalCode',
  country_code: 'countryCode',
} as const satisfies Record<keyof Fields, keyof Address>;

function fieldsOf(address: Address): Fields {
  return Object.fromEntries(FIELDS.map((field) => [field, address[PROPERTIES[field]] ?? null])) as Fields;
}

export async function findAddress(em: Em, userId: string): Promise<Address> {
  const address = await em.findOne(Address, { user: userId });
  // The body of this 404 (none, on the show) is the endpoint's declaration (`emptyNotFound`).
  if (!address) throw notFound();
  return address;
}

/**
 * Creates the address or merges a partial change into it. The merged result must be a complete
 * address. One statement (`insert … on conflict (user_id) do update`) writes it, so concurrent
 * PATCHes leave exactly one row; on conflict only the fields sent are written, so two concurrent
 * partial changes of different fields both survive.
 */
export async function saveAddress(em: Em, userId: string, patch: Patch): Promise<Address> {
  const current = await em.findOne(Address, { user: userId });
  const given = FIELDS.filter((field) => patch[field] !== undefined);
  const merged = AddressComplete.safeParse({
    ...(current && fieldsOf(current)),
    ...Object.fromEntries(given.map((field) => [field, patch[field]])),
  });
  if (!merged.success) throw unprocessable(toFieldErrors(merged.error.issues));

  const now = new Date();
  const updates = [
    ...given.map((field) => `${field} = excluded.${field}`),
    'updated_at = excluded.updated_at',
  ];
  const rows = await em.execute(
    `insert into addresses (id, user_id, ${FIELDS.join(', ')}, created_at, updated_at)
     values (?, ?, ${FIELDS.map(() => '?').join(', ')}, ?, ?)
     on conflict (user_id) do update set ${updates.join(', ')}
     returning *`,
    [newId(), userId, ...FIELDS.map((field) => merged.data[field]), now, now],
  );
  return em.map(Address, rows[0] as Record<string, unknown>);
}

export async function deleteAddress(em: Em, userId: string): Promise<void> {
  const deleted = await em.nativeDelete(Address, { user: userId });
  if (deleted === 0) throw notFound();
}
