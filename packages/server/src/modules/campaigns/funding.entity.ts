import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { newId } from '../../db/ids.js';
import { Campaign } from './campaign.entity.js';

/** Money added to a campaign's budget; made through the test helpers here. */
export const Funding = defineEntity({
  name: 'Funding',
  tableName: 'fundings',
  properties: {
    id: p
      .string()
      .length(16)
      .primary()
      .onCreate(() => newId()),
    campaign: () => p.manyToOne(Campaign).deleteRule('cascade'),
    amount: p.bigint('number'),
    createdAt: p.datetime(3).onCreate(() => new Date()),
  },
  indexes: [{ properties: ['campaign'] }],
});
export type Funding = InferEntity<typeof Funding>;
