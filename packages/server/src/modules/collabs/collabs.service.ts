import type { Em } from '../../db/database.js';
import { Collab } from './collab.entity.js';

/** Whether an organization still has any collab (it blocks the organization's deletion). */
export async function organizationHasCollabs(em: Em, organizationId: string): Promise<boolean> {
  return (await em.count(Collab, { organization: organizationId })) > 0;
}
