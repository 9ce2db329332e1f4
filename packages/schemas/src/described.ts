/**
 * A resource's type: the fields of `T`, its schema's output, with their types, each carrying the
 * JSDoc of its entry in `Docs` (the resource's `ResourceFieldDocs`), which an editor shows on hover
 * over the field. A mapped type over `T & Docs` keeps each property's declarations, and so the
 * JSDoc, and its type is `T`'s (`T[K] & unknown` is `T[K]`): one object type, where the
 * intersection itself would show a second block of `unknown` fields on hover over the type.
 */
export type Described<T, Docs> = { [K in keyof (T & Docs)]: (T & Docs)[K] };
