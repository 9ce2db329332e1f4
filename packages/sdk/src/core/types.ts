import type { BodySpec, Endpoint, FieldDocs, ResourceTypes } from '@app/schemas';
import type * as z from 'zod';
import type { FileValue } from './uploads.js';

/** Path parameters of an endpoint, with branded ids (`{ organization_id: OrganizationId, id: CollabId }`). */
export type Params<E extends Endpoint> = z.output<E['params']>;

/**
 * `T` with the contract's description of each of its fields (`FIELD_DESCRIPTIONS`) as their JSDoc,
 * which an editor shows on hover (`cpm_amount`: in the minor unit of `currency`). The added
 * properties are optional and `unknown`, so the type of every field is `T`'s.
 */
type Documented<T, Fields extends keyof FieldDocs = keyof FieldDocs> = T & Pick<FieldDocs, keyof T & Fields>;

/**
 * Query parameters of an endpoint (`{ page?: number }` on collections); `page` documented (a
 * query's other fields, collab create's `website`, mean something else than the payload's).
 */
export type Query<E extends Endpoint> = Documented<z.output<E['query']>, 'page'>;

/**
 * The payload of an endpoint, unwrapped: its schema's input, plus a {@link FileValue} (`Blob`,
 * `File`, or the bytes: a `Uint8Array` or `Buffer`, an `ArrayBuffer`) for each of the endpoint's
 * file fields (`logo`, `banner_image`), which take `undefined` as every optional field does (under
 * `exactOptionalPropertyTypes` too).
 */
export type Payload<E extends Endpoint> =
  E['body'] extends BodySpec<string | null, infer Schema, infer File>
    ? Documented<z.input<Schema> & { [Field in File]?: FileValue | null | undefined }>
    : never;

/**
 * What a call of the endpoint resolves to: its parsed response, named after the resource it is
 * (`Collab`, a list's `CollabSummary[]`), whose fields show their descriptions on hover;
 * `undefined` when it has none.
 */
export type Result<E extends Endpoint> = E['response'] extends z.ZodType
  ? Named<z.output<E['response']>>
  : undefined;

/** The item type of a collection endpoint, named after its resource (`CollabSummary`). */
export type Item<E extends Endpoint> = E['response'] extends z.ZodArray<infer I> ? Named<z.output<I>> : never;

/**
 * `T`, a schema's output, as the resource type that has exactly its fields and their types
 * (`ResourceTypes`: `Collab`, whose fields carry their descriptions), in an array or a union with
 * `null` too; any other type as it is. The same values either way: only the hover differs.
 */
type Named<T> = T extends readonly (infer I)[]
  ? Named<I>[]
  : {
        [K in keyof ResourceTypes]: [T] extends [ResourceTypes[K]]
          ? [ResourceTypes[K]] extends [T]
            ? ResourceTypes[K]
            : never
          : never;
      }[keyof ResourceTypes] extends infer R
    ? [R] extends [never]
      ? T
      : R
    : never;

export interface RequestInput<E extends Endpoint> {
  params?: Params<E>;
  query?: Query<E>;
  body?: Payload<E>;
}
