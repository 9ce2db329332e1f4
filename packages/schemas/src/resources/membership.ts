import * as z from 'zod';
import { component } from '../components.js';
import type { Described } from '../described.js';
import * as ex from '../examples.js';
import type { ResourceFieldDocs } from '../field-docs.js';
import { idOf, oneOf, timestamp } from '../primitives.js';
import { User } from './user.js';

export const MembershipId = idOf('MembershipId', 'membership');
export type MembershipId = z.infer<typeof MembershipId>;

export const Role = component(oneOf(['member', 'admin']), {
  id: 'Role',
  description: "A member's role in an organization",
  examples: ['member'],
});
export type Role = z.infer<typeof Role>;

export const Membership = z.object({
  id: MembershipId,
  role: Role,
  /** True for the organization owner, who cannot be removed or demoted. */
  is_owner: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
  user: User,
});
export type Membership = Described<
  Omit<z.infer<typeof Membership>, 'user'> & { user: User },
  ResourceFieldDocs['Membership']
>;
component(Membership, {
  id: 'Membership',
  description: "A user's membership of an organization, with the user.",
  examples: [ex.membership],
});

/** `membership` payload of `PATCH /organizations/:organization_id/members/:id.json`. */
export const MembershipUpdate = z.object({ role: Role });
export type MembershipUpdate = z.input<typeof MembershipUpdate>;
component(MembershipUpdate, {
  id: 'MembershipUpdate',
  description: "A member's new role.",
  examples: [{ role: 'admin' }],
});
