import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { newId } from '../../db/ids.js';
import { Collab } from './collab.entity.js';

/** A creator's submission to a collab; made through the test helpers here. */
export const Submission = defineEntity({
  name: 'Submission',
  tableName: 'submissions',
  properties: {
    id: p
      .string()
      .length(16)
      .primary()
      .onCreate(() => newId()),
    collab: () => p.manyToOne(Collab).deleteRule('cascade'),
    createdAt: p.datetime(3).onCreate(() => new Date()),
  },
  indexes: [{ properties: ['collab'] }],
});
export type Submission = InferEntity<typeof Submission>;
