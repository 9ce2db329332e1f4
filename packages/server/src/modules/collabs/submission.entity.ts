import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { createdAtColumn, idColumn } from '../../db/columns.js';
import { Collab } from './collab.entity.js';

/** A creator's submission to a collab; made through the test helpers here. */
export const Submission = defineEntity({
  name: 'Submission',
  tableName: 'submissions',
  properties: {
    id: idColumn(),
    collab: () => p.manyToOne(Collab).deleteRule('cascade'),
    createdAt: createdAtColumn(),
  },
  indexes: [{ properties: ['collab'] }],
});
export type Submission = InferEntity<typeof Submission>;
