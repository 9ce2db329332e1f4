import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { createdAtColumn, idColumn } from '../../db/columns.js';
import { Campaign } from './campaign.entity.js';

/** Money added to a campaign's budget; made through the test helpers here. */
export const Funding = defineEntity({
  name: 'Funding',
  tableName: 'fundings',
  properties: {
    id: idColumn(),
    campaign: () => p.manyToOne(Campaign).deleteRule('cascade'),
    amount: p.bigint('number'),
    createdAt: createdAtColumn(),
  },
  indexes: [{ properties: ['campaign'] }],
});
export type Funding = InferEntity<typeof Funding>;
